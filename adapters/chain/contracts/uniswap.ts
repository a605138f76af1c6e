/**
 * Writes the real Uniswap v3 contracts the devnet deploys to `artifacts/uniswap/<Name>.json`, from the packages
 * Uniswap published: each tarball is fetched with `npm pack` at its exact version into a temporary folder, its
 * sha512 checked against the registry's `dist.integrity` (`npm view`), and only the ABI and creation bytecode of the
 * needed contracts kept, with where they came from. Usage: `npm run uniswap`. The JSON files are committed and never
 * edited by hand; the packages are not dependencies of the project.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Abi, Hex } from 'viem'

/** Folder holding the committed Uniswap artifacts. */
export const uniswapDirectory = join(import.meta.dir, 'artifacts', 'uniswap')

/** The contracts taken, by package at its exact version, with their artifact paths inside the tarball. */
export const sources = [
  {
    package: '@uniswap/v3-core',
    version: '1.0.1',
    contracts: {
      UniswapV3Factory: 'package/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json',
      UniswapV3Pool: 'package/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json',
    },
  },
  {
    package: '@uniswap/v3-periphery',
    version: '1.4.4',
    contracts: {
      NonfungiblePositionManager:
        'package/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json',
      QuoterV2: 'package/artifacts/contracts/lens/QuoterV2.sol/QuoterV2.json',
    },
  },
  {
    package: '@uniswap/swap-router-contracts',
    version: '1.3.1',
    contracts: { SwapRouter02: 'package/artifacts/contracts/SwapRouter02.sol/SwapRouter02.json' },
  },
] as const

/** A contract name of {@link sources}. */
export type Name = keyof (typeof sources)[number]['contracts']

/** One committed Uniswap artifact. */
export type UniswapArtifact = {
  /** Contract name, also the file name `<contractName>.json`. */
  contractName: string
  /** Where it comes from. */
  source: {
    /** npm package name. */
    package: string
    /** Exact package version. */
    version: string
    /** The tarball's Subresource Integrity string, as the registry publishes it (`dist.integrity`). */
    integrity: string
    /** The Hardhat artifact's path inside the tarball. */
    path: string
  }
  /** Contract ABI, as published. */
  abi: Abi
  /** Creation bytecode, as published; no library links. */
  bytecode: Hex
}

/** Runs a command and returns its standard output; throws with its standard error when it fails. */
function run(command: string[], cwd: string): string {
  const result = Bun.spawnSync(command, { cwd, stdout: 'pipe', stderr: 'pipe' })
  if (result.exitCode !== 0) throw new Error(`${command.join(' ')} failed: ${result.stderr.toString().trim()}`)
  return result.stdout.toString()
}

/** Packages to take contracts from: each at its exact version, with its contracts' artifact paths in the tarball. */
export type Sources = readonly {
  /** npm package name. */
  package: string
  /** Exact package version. */
  version: string
  /** Hardhat artifact path inside the tarball, by contract name. */
  contracts: Readonly<Record<string, string>>
}[]

/** Fetches, checks and extracts every artifact of `packages` (@default {@link sources}, Uniswap's). */
export function fetchArtifacts(packages: Sources = sources): UniswapArtifact[] {
  const folder = mkdtempSync(join(tmpdir(), 'artifacts-'))
  try {
    const artifacts: UniswapArtifact[] = []
    for (const source of packages) {
      const spec = `${source.package}@${source.version}`
      const published = run(['npm', 'view', spec, 'dist.integrity'], folder).trim()
      const [packed] = JSON.parse(run(['npm', 'pack', spec, '--json', '--pack-destination', folder], folder)) as {
        filename: string
      }[]
      const tarball = join(folder, packed!.filename)
      const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`
      if (integrity !== published)
        throw new Error(`${spec}: the tarball's integrity ${integrity} is not the registry's ${published}.`)
      const paths = Object.values(source.contracts)
      const extracted = join(folder, packed!.filename.replace(/\.tgz$/, ''))
      mkdirSync(extracted)
      run(['tar', 'xzf', tarball, '-C', extracted, ...paths], folder)
      for (const [contractName, path] of Object.entries(source.contracts)) {
        const hardhat = JSON.parse(readFileSync(join(extracted, path), 'utf8')) as {
          abi: Abi
          bytecode: Hex
          linkReferences: Record<string, unknown>
        }
        if (Object.keys(hardhat.linkReferences).length > 0)
          throw new Error(`${spec} ${contractName} links libraries; the devnet deploys bytecode as published.`)
        artifacts.push({
          contractName,
          source: { package: source.package, version: source.version, integrity, path },
          abi: hardhat.abi,
          bytecode: hardhat.bytecode,
        })
      }
    }
    return artifacts
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

/** Fetches the artifacts of `packages` and writes each to `<directory>/<contractName>.json`, saying what it wrote. */
export function writeArtifacts(packages: Sources, directory: string): void {
  mkdirSync(directory, { recursive: true })
  for (const artifact of fetchArtifacts(packages)) {
    writeFileSync(join(directory, `${artifact.contractName}.json`), `${JSON.stringify(artifact, null, 2)}\n`)
    console.log(
      `${artifact.contractName} (${artifact.source.package}@${artifact.source.version}): ${(artifact.bytecode.length - 2) / 2} bytes`,
    )
  }
}

if (import.meta.main) writeArtifacts(sources, uniswapDirectory)
