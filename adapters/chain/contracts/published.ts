/**
 * Takes contract artifacts from packages published on npm: each tarball is fetched with `npm pack` at its exact
 * version into a temporary folder, its sha512 checked against the registry's `dist.integrity` (`npm view`), and only
 * the ABI and creation bytecode of the needed contracts kept, with where they came from. Used by the scripts that
 * write committed artifacts (`uniswap.ts`, `entrypoint.ts`); the packages are not dependencies of the project.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Abi, Hex } from 'viem'

/** One package to take contracts from. */
export type PublishedSource = {
  /** npm package name. */
  readonly package: string
  /** Exact package version. */
  readonly version: string
  /** Hardhat artifact paths inside the tarball, by contract name. */
  readonly contracts: Readonly<Record<string, string>>
}

/** One committed artifact taken from a published package. */
export type PublishedArtifact = {
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

/** Fetches, checks and extracts every artifact of `sources`. */
export function fetchPublished(parameters: fetchPublished.Parameters): PublishedArtifact[] {
  const { sources, prefix } = parameters
  const folder = mkdtempSync(join(tmpdir(), `${prefix}-`))
  try {
    const artifacts: PublishedArtifact[] = []
    for (const source of sources) {
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

export declare namespace fetchPublished {
  type Parameters = {
    /** The packages and the contracts to take from each. */
    sources: readonly PublishedSource[]
    /** Name prefix of the temporary folder. */
    prefix: string
  }
}
