import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'

/** One package of a package-lock.json (lockfile version 3), under its folder. */
type Locked = {
  version?: string
  integrity?: string
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
  dev?: boolean
  devOptional?: boolean
  peer?: boolean
}

/** The repository's root. */
const root = join(import.meta.dir, '../..')

/**
 * The entries of `lock` a folder needs to install `dependencies` as this repository has them, by folder: each
 * package found as Node finds it (its own node_modules, then its parents'), with its dependencies, optional ones
 * present here and peers that are not optional. So that a folder installs offline, from the npm cache this
 * repository's `npm ci` filled, the very versions the repository was tested with.
 */
export function closure(lock: Record<string, Locked>, dependencies: Record<string, string>): Record<string, Locked> {
  const found: Record<string, Locked> = {}
  const visit = (from: string, name: string, optional: boolean) => {
    const folder = folderOf(lock, from, name)
    if (folder === undefined) {
      if (optional) return
      throw new Error(`${name}, which ${from || 'the package'} depends on, is not in package-lock.json.`)
    }
    if (folder in found) return
    const { dev, devOptional, peer, ...entry } = lock[folder]!
    found[folder] = entry
    for (const dependency of Object.keys(entry.dependencies ?? {})) visit(folder, dependency, false)
    for (const dependency of Object.keys(entry.optionalDependencies ?? {})) visit(folder, dependency, true)
    for (const dependency of Object.keys(entry.peerDependencies ?? {}))
      if (!entry.peerDependenciesMeta?.[dependency]?.optional) visit(folder, dependency, false)
  }
  for (const name of Object.keys(dependencies)) visit('', name, false)
  return found
}

/** Where Node finds `name` from the package in folder `from` ('' for the root), or undefined. */
function folderOf(lock: Record<string, Locked>, from: string, name: string): string | undefined {
  for (let folder = from; ; folder = folder.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, '')) {
    const candidate = `${folder ? `${folder}/` : ''}node_modules/${name}`
    if (candidate in lock) return candidate
    if (folder === '') return undefined
  }
}

/**
 * Writes into `folder` a package.json that depends on the packed `tarball` and a package-lock.json of the tarball
 * and {@link closure} of its dependencies, so that `npm ci --offline` installs it there without the registry.
 */
export function lockFor(parameters: lockFor.Parameters): void {
  const { folder, tarball, manifest } = parameters
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages as Record<string, Locked>
  const spec = `file:${basename(tarball)}`
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`
  const dependencies = { [manifest.name]: spec }
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'embed-check', private: true, dependencies }))
  const packages = {
    '': { name: 'embed-check', dependencies },
    [`node_modules/${manifest.name}`]: {
      version: manifest.version,
      resolved: spec,
      integrity,
      dependencies: manifest.dependencies,
      engines: manifest.engines,
      // npm ci links a package's commands into node_modules/.bin from the lock's entry.
      ...(manifest.bin ? { bin: manifest.bin } : {}),
    },
    ...closure(lock, manifest.dependencies),
  }
  writeFileSync(
    join(folder, 'package-lock.json'),
    JSON.stringify({ name: 'embed-check', lockfileVersion: 3, requires: true, packages }, null, 2),
  )
}

export declare namespace lockFor {
  type Parameters = {
    /** The empty folder to install in. */
    folder: string
    /** The path of the packed package. */
    tarball: string
    /** The package's package.json. */
    manifest: {
      name: string
      version: string
      engines?: Record<string, string>
      bin?: Record<string, string>
      dependencies: Record<string, string>
    }
  }
}
