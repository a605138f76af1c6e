import { describe, expect, test } from 'bun:test'
import { describeError, stdout } from '../../app/log.js'

describe('stdout', () => {
  test('security: every URL in a field is cut down to its scheme and host', () => {
    const lines: string[] = []
    stdout('info', (line) => lines.push(line)).log('info', 'event', {
      rpc: 'https://user:pw@node.example:8545/v2/key-123?apikey=abc',
      nested: { error: ['failed: wss://node.example/ws/key-456 closed'] },
      database: 'postgres://gateway:hunter2@db.internal/gateway',
      listening: 'http://127.0.0.1:3402',
    })
    const logged = JSON.parse(lines[0]!)
    expect(logged).toMatchObject({
      rpc: 'https://node.example:8545/…',
      nested: { error: ['failed: wss://node.example/… closed'] },
      database: 'postgres://db.internal/…',
      listening: 'http://127.0.0.1:3402',
    })
    for (const secret of ['key-123', 'apikey', 'key-456', 'hunter2', 'pw@']) expect(lines[0]).not.toContain(secret)
  })

  test('behavior: below the level nothing is written', () => {
    const lines: string[] = []
    stdout('warn', (line) => lines.push(line)).log('info', 'event')
    expect(lines).toEqual([])
  })
})

describe('describeError', () => {
  test('security: names the classes along the cause chain and the frames, never a message', () => {
    class NodeError extends Error {
      override readonly name = 'NodeError'
    }
    const error = new Error('handler failed with body {"secret":"s3"}', {
      cause: new NodeError('https://node.example/key'),
    })
    const described = describeError(error)
    expect(described.names).toEqual(['Error', 'NodeError'])
    expect(described.frames.length).toBeGreaterThan(0)
    expect(JSON.stringify(described)).not.toContain('s3')
    expect(JSON.stringify(described)).not.toContain('node.example')
  })
})
