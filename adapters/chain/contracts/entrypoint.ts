/**
 * Writes the ERC-4337 EntryPoint v0.7 the devnet deploys to `artifacts/account-abstraction/EntryPoint.json`, from
 * the package the eth-infinitism team published (`@account-abstraction/contracts@0.7.0`, the release whose
 * EntryPoint is deployed at `0x0000000071727De22E5E9d8BAf0edAc6f37da032` on mainnets), through {@link fetchPublished}.
 * Usage: `npm run entrypoint`. The JSON file is committed and never edited by hand.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fetchPublished } from './published.js'

/** Folder holding the committed account-abstraction artifacts. */
export const entryPointDirectory = join(import.meta.dir, 'artifacts', 'account-abstraction')

/** The package and the artifact taken from it. */
export const sources = [
  {
    package: '@account-abstraction/contracts',
    version: '0.7.0',
    contracts: { EntryPoint: 'package/artifacts/EntryPoint.json' },
  },
] as const

if (import.meta.main) {
  mkdirSync(entryPointDirectory, { recursive: true })
  for (const artifact of fetchPublished({ sources, prefix: 'account-abstraction' })) {
    writeFileSync(join(entryPointDirectory, `${artifact.contractName}.json`), `${JSON.stringify(artifact, null, 2)}\n`)
    console.log(
      `${artifact.contractName} (${artifact.source.package}@${artifact.source.version}): ${(artifact.bytecode.length - 2) / 2} bytes`,
    )
  }
}
