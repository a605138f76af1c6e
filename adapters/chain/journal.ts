import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import type { Hash } from 'viem'
import { StartError } from '../../core/Errors.js'

/** What makes two devnets the same chain at genesis; the first line of a journal. */
export type Header = {
  /** Format of the journal. */
  journal: 1
  /** Chain id. */
  chainId: number
  /** Timestamp of the genesis block, in seconds since the Unix epoch. */
  genesisTime: number
  /** EVM hardfork. */
  hardfork: string
  /** Mnemonic accounts funded with ETH at genesis. */
  accountCount: number
  /** ETH per funded account, in wei, as a decimal string. */
  balance: string
  /** Block gas limit, in gas, as a decimal string. */
  blockGasLimit: string
}

/** One request that changed the chain, in the order the chain executed it; one line of a journal after the header. */
export type Entry = {
  /** JSON-RPC method. */
  m: string
  /** Its parameters, verbatim (an array or, rarely, an object). */
  p: unknown
  /** Timestamp of the first block it mined, in seconds; absent when it mined none. */
  t?: number
  /** Number of blocks it mined when more than one (hardhat_mine); the chain derives their timestamps from the first. */
  n?: number
  /** Hash of the last block it mined; checked after a replay. */
  h?: Hash
  /** Set when the request answered an error (and still mined blocks). */
  e?: 1
}

/** A journal open for appending, held by this process until `close`. */
export type Journal = {
  /** The header, when the file holds a chain; undefined for a new journal. */
  header: Header | undefined
  /** The entries to replay, oldest first; a torn last line (a write cut by kill -9) is left out and cut from the file. */
  entries: readonly Entry[]
  /** Writes the header and the entries of a new chain at once (a crash leaves no journal or the whole one). */
  begin(header: Header, entries: readonly Entry[]): void
  /** Appends one entry with one write; returns once the operating system has it. */
  append(entry: Entry): void
  /** Closes the file and releases the lock. */
  close(): void
}

// Locks this process holds, so a lock file naming this process's id is told apart from one left by an earlier
// process that had the same id (a container restarted after kill -9 gets the same pid).
const held = new Set<string>()

/**
 * Opens the journal at `path` (a JSON line per entry, the header first), taking the lock file `<path>.lock` that
 * keeps a second process from appending to the same chain. A lock left by a process that no longer runs is taken
 * over.
 */
export function open(parameters: open.Parameters): Journal {
  const { path } = parameters
  const lockPath = `${path}.lock`
  lock(lockPath, path)
  const release = () => {
    if (!held.delete(lockPath)) return
    rmSync(lockPath, { force: true })
  }
  // An exit without `close` (Ctrl-C handlers that call process.exit) must not leave the lock behind.
  process.once('exit', release)

  let header: Header | undefined
  let entries: Entry[] = []
  try {
    ;({ header, entries } = read(path))
  } catch (error) {
    release()
    throw error
  }
  let fd: number | undefined = header ? openSync(path, 'a') : undefined

  return {
    header,
    entries,
    begin(newHeader, newEntries) {
      if (fd !== undefined) throw new Error('The journal already holds a chain.')
      const temporary = `${path}.${process.pid}.tmp`
      writeFileSync(temporary, [newHeader, ...newEntries].map((line) => `${JSON.stringify(line)}\n`).join(''))
      renameSync(temporary, path)
      fd = openSync(path, 'a')
    },
    append(entry) {
      if (fd === undefined) throw new Error('The journal has no chain yet: begin it first.')
      const bytes = Buffer.from(`${JSON.stringify(entry)}\n`)
      for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written)
    },
    close() {
      if (fd !== undefined) closeSync(fd)
      fd = undefined
      process.removeListener('exit', release)
      release()
    },
  }
}

export declare namespace open {
  type Parameters = {
    /** Path of the journal file; created on `begin` when absent. */
    path: string
  }
}

function lock(lockPath: string, path: string): void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockPath, String(process.pid), { flag: 'wx' })
      held.add(lockPath)
      return
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error
    }
    const pid = Number(readFileSync(lockPath, 'utf8').trim())
    if (Number.isInteger(pid) && pid > 0 && isRunning(pid) && (pid !== process.pid || held.has(lockPath)))
      throw new StartError({
        code: 'devnet_in_use',
        message: `The devnet journal ${path} is in use by process ${pid}: stop that devnet or gateway (or delete ${lockPath} if no such process runs).`,
      })
    rmSync(lockPath, { force: true })
  }
  throw new StartError({
    code: 'devnet_in_use',
    message: `Could not take the lock ${lockPath} of the devnet journal ${path}.`,
  })
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as { code?: string }).code === 'EPERM'
  }
  // A process killed with -9 stays a zombie until its parent reaps it, and signal 0 still reaches a zombie.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat.charAt(stat.lastIndexOf(')') + 2)
    return state !== 'Z' && state !== 'X'
  } catch {
    return true
  }
}

function read(path: string): { header: Header | undefined; entries: Entry[] } {
  if (!existsSync(path)) return { header: undefined, entries: [] }
  const bytes = readFileSync(path)
  // Everything after the last newline is a write that kill -9 cut short: the request it records never answered.
  let end = bytes.lastIndexOf(0x0a) + 1
  const lines = bytes.subarray(0, end).toString('utf8').split('\n').slice(0, -1)
  const parsed: unknown[] = []
  for (const [index, line] of lines.entries()) {
    try {
      parsed.push(JSON.parse(line))
    } catch {
      // Only the last line may be damaged (a crash of the machine rather than of the process can leave zeros).
      if (index !== lines.length - 1)
        throw new StartError({
          code: 'devnet_journal_invalid',
          message: `The devnet journal ${path} has a damaged line ${index + 1}.`,
        })
      end -= Buffer.byteLength(`${line}\n`)
    }
  }
  if (end !== bytes.length) truncateSync(path, end)
  if (parsed.length === 0) return { header: undefined, entries: [] }
  const [header, ...entries] = parsed
  if (!isHeader(header))
    throw new StartError({
      code: 'devnet_journal_invalid',
      message: `${path} is not a devnet journal (its first line is no journal header).`,
    })
  for (const [index, entry] of entries.entries())
    if (!isEntry(entry))
      throw new StartError({
        code: 'devnet_journal_invalid',
        message: `The devnet journal ${path} has an invalid entry on line ${index + 2}.`,
      })
  return { header, entries: entries as Entry[] }
}

function isHeader(value: unknown): value is Header {
  const header = value as Header
  return (
    typeof value === 'object' &&
    value !== null &&
    header.journal === 1 &&
    Number.isInteger(header.chainId) &&
    Number.isInteger(header.genesisTime) &&
    typeof header.hardfork === 'string' &&
    Number.isInteger(header.accountCount) &&
    /^\d+$/.test(String(header.balance)) &&
    /^\d+$/.test(String(header.blockGasLimit))
  )
}

function isEntry(value: unknown): value is Entry {
  const entry = value as Entry
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof entry.m === 'string' &&
    entry.p !== undefined &&
    (entry.t === undefined || Number.isInteger(entry.t)) &&
    (entry.n === undefined || Number.isInteger(entry.n))
  )
}
