/**
 * Compiles every `*.sol` in this folder with the `solc` package and writes `artifacts/<Name>.json`.
 * Usage: `node_modules/.bin/bun adapters/chain/contracts/build.ts`. The artifacts are committed; a test
 * recompiles and fails when they disagree with the sources.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import solc from 'solc'
import type { Abi, Hex } from 'viem'

/** Folder holding the Solidity sources. */
export const sourcesDirectory = import.meta.dir

/** Folder holding the committed artifacts. */
export const artifactsDirectory = join(import.meta.dir, 'artifacts')

/** Compiler settings; changing them changes the bytecode, which the artifacts test catches. */
export const settings = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
} as const

/** What the build writes per deployable contract. */
export type Artifact = {
  /** Solidity contract name, also the file name `<contractName>.json`. */
  contractName: string
  /** Contract ABI as emitted by solc. */
  abi: Abi
  /** Creation bytecode, `0x`-prefixed. */
  bytecode: Hex
  /** Runtime bytecode, `0x`-prefixed; immutables read as zero, so only constructor-free contracts go into genesis with it. */
  deployedBytecode: Hex
  /** sha256 over the solc version string, a NUL byte and the source text of the contract's file. */
  sourceHash: Hex
}

/** Compiles every `*.sol` in `sourcesDirectory` in memory; interfaces and abstract contracts (no bytecode) are skipped. */
export function compile(): Artifact[] {
  const version: string = solc.version()
  const files = readdirSync(sourcesDirectory)
    .filter((file) => file.endsWith('.sol'))
    .sort()
  const sources: Record<string, { content: string }> = {}
  for (const file of files) sources[file] = { content: readFileSync(join(sourcesDirectory, file), 'utf8') }

  // Source keys are bare file names so the metadata hash in the bytecode is the same on every machine.
  const output = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources, settings }))) as compile.Output
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error')
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((error) => error.formattedMessage).join('\n')}`)

  const artifacts: Artifact[] = []
  for (const file of files) {
    const sourceHash = `0x${createHash('sha256').update(`${version}\0${sources[file]!.content}`).digest('hex')}` as Hex
    for (const [contractName, contract] of Object.entries(output.contracts?.[file] ?? {})) {
      if (!contract.evm.bytecode.object) continue
      artifacts.push({
        contractName,
        abi: contract.abi,
        bytecode: `0x${contract.evm.bytecode.object}`,
        deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
        sourceHash,
      })
    }
  }
  return artifacts.sort((a, b) => a.contractName.localeCompare(b.contractName))
}

export declare namespace compile {
  /** The subset of solc's standard JSON output that the build reads. */
  type Output = {
    /** Diagnostics; any with severity `error` fails the build. */
    errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[]
    /** Contracts by source file, then by contract name. */
    contracts?: Record<
      string,
      Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
    >
  }
}

/** Serializes an artifact the way it is committed: two-space JSON with a trailing newline. */
export function serialize(artifact: Artifact): string {
  return `${JSON.stringify(artifact, null, 2)}\n`
}

/** Compiles and rewrites `artifactsDirectory`, removing artifacts of contracts that no longer exist. */
export function build(): Artifact[] {
  const artifacts = compile()
  mkdirSync(artifactsDirectory, { recursive: true })
  const names = new Set(artifacts.map((artifact) => `${artifact.contractName}.json`))
  for (const file of readdirSync(artifactsDirectory))
    if (file.endsWith('.json') && !names.has(file)) rmSync(join(artifactsDirectory, file))
  for (const artifact of artifacts)
    writeFileSync(join(artifactsDirectory, `${artifact.contractName}.json`), serialize(artifact))
  return artifacts
}

if (import.meta.main) {
  for (const artifact of build())
    console.log(
      `${artifact.contractName}: ${(artifact.bytecode.length - 2) / 2} bytes -> ${basename(artifactsDirectory)}/${artifact.contractName}.json`,
    )
}
