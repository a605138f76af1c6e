/**
 * Writes the real Ethereum Attestation Service contracts the devnet deploys (EAS and its SchemaRegistry, the contracts
 * Base has as predeploys at `0x4200…0021` and `0x4200…0020`) to `artifacts/eas/<Name>.json`, from the package the EAS
 * team published, through {@link fetchPublished} (`npm pack` at the exact version, integrity checked against the
 * registry, only ABI and creation bytecode kept). Usage: `npm run eas`. The JSON files are committed, never edited.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fetchPublished } from './published.js'

/** Folder holding the committed EAS artifacts. */
export const easDirectory = join(import.meta.dir, 'artifacts', 'eas')

/** The contracts taken, from `@ethereum-attestation-service/eas-contracts` at its exact version. */
export const easSources = [
  {
    package: '@ethereum-attestation-service/eas-contracts',
    version: '1.9.0',
    contracts: {
      SchemaRegistry: 'package/artifacts/contracts/SchemaRegistry.sol/SchemaRegistry.json',
      EAS: 'package/artifacts/contracts/EAS.sol/EAS.json',
    },
  },
] as const

if (import.meta.main) {
  mkdirSync(easDirectory, { recursive: true })
  for (const artifact of fetchPublished({ sources: easSources, prefix: 'eas' }))
    writeFileSync(join(easDirectory, `${artifact.contractName}.json`), `${JSON.stringify(artifact, null, 2)}\n`)
}
