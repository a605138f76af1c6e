/**
 * Writes the real Uniswap v3 contracts the devnet deploys to `artifacts/uniswap/<Name>.json`, from the packages
 * Uniswap published: each tarball is fetched with `npm pack` at its exact version into a temporary folder, its
 * sha512 checked against the registry's `dist.integrity` (`npm view`), and only the ABI and creation bytecode of the
 * needed contracts kept, with where they came from. Usage: `npm run uniswap`. The JSON files are committed and never
 * edited by hand; the packages are not dependencies of the project.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fetchPublished, type PublishedArtifact } from './published.js'

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
export type UniswapArtifact = PublishedArtifact

if (import.meta.main) {
  mkdirSync(uniswapDirectory, { recursive: true })
  for (const artifact of fetchPublished({ sources, prefix: 'uniswap' })) {
    writeFileSync(join(uniswapDirectory, `${artifact.contractName}.json`), `${JSON.stringify(artifact, null, 2)}\n`)
    console.log(
      `${artifact.contractName} (${artifact.source.package}@${artifact.source.version}): ${(artifact.bytecode.length - 2) / 2} bytes`,
    )
  }
}
