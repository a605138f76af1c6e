import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { eip3009ABI } from '@x402/evm'
import { type AbiFunction, toFunctionSignature } from 'viem'
import { type Artifact, artifactsDirectory, compile, serialize } from '../../../adapters/chain/contracts/build.js'

const rebuild = 'run `node_modules/.bin/bun adapters/chain/contracts/build.ts` and commit the artifacts'

function committed(contractName: string): { text: string; artifact: Artifact } {
  const text = readFileSync(join(artifactsDirectory, `${contractName}.json`), 'utf8')
  return { text, artifact: JSON.parse(text) as Artifact }
}

describe('compile', () => {
  const compiled = compile()

  test('behavior: every source contract has a committed artifact and nothing else is committed', () => {
    const files = readdirSync(artifactsDirectory)
      .filter((file) => file.endsWith('.json'))
      .sort()
    expect(files, rebuild).toEqual(compiled.map(({ contractName }) => `${contractName}.json`).sort())
  })

  test('behavior: committed artifacts match the sources (sourceHash, bytecode, runtime bytecode, abi)', () => {
    for (const artifact of compiled) {
      const { text, artifact: stored } = committed(artifact.contractName)
      expect(stored.sourceHash, `${artifact.contractName}: source changed, ${rebuild}`).toBe(artifact.sourceHash)
      expect(stored.bytecode, `${artifact.contractName}: bytecode differs, ${rebuild}`).toBe(artifact.bytecode)
      expect(stored.deployedBytecode, `${artifact.contractName}: runtime bytecode differs, ${rebuild}`).toBe(
        artifact.deployedBytecode,
      )
      expect(stored.abi, `${artifact.contractName}: ABI differs, ${rebuild}`).toEqual(artifact.abi)
      expect(text, `${artifact.contractName}: formatting differs, ${rebuild}`).toBe(serialize(artifact))
    }
  })

  test('behavior: DevUSDC has every function of the EIP-3009 ABI that @x402/evm calls', () => {
    const devUsdc = compiled.find(({ contractName }) => contractName === 'DevUSDC')!
    const ours = devUsdc.abi
      .filter((item): item is AbiFunction => item.type === 'function')
      .map((item) => toFunctionSignature(item))
    const theirs = eip3009ABI.map((item) => toFunctionSignature(item))
    expect(theirs).toContain(
      'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)',
    )
    for (const signature of theirs) expect(ours).toContain(signature)
  })
})
