import { type ParsedMail, simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'

/**
 * A local SMTP relay (smtp-server): refuses recipients at `bounce.test` with 550, defers the first try of each
 * recipient at `busy.test` with 451 and every try at `down.test` with 421, and parses every accepted message with
 * mailparser.
 */
export async function relay() {
  const received: ParsedMail[] = []
  // The envelope's recipients of each accepted message: bcc shows only here, never in the headers.
  const envelopes: string[][] = []
  const tries = new Map<string, number>()
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const to = address.address
      tries.set(to, (tries.get(to) ?? 0) + 1)
      if (to.endsWith('@bounce.test'))
        return callback(Object.assign(new Error('5.1.1 No such user here'), { responseCode: 550 }))
      if (to.endsWith('@busy.test') && tries.get(to) === 1)
        return callback(Object.assign(new Error('4.7.1 Try again later'), { responseCode: 451 }))
      if (to.endsWith('@down.test'))
        return callback(Object.assign(new Error('4.3.2 Service shutting down'), { responseCode: 421 }))
      callback()
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push(mail)
          envelopes.push(session.envelope.rcptTo.map((recipient) => recipient.address))
          callback()
        })
        .catch(callback)
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as { port: number }
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    envelopes,
    close: () => new Promise<void>((done) => server.close(done)),
  }
}
