import { Type } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import { ForbiddenError } from '../../core/Errors.js'
import * as Module from '../../core/Module.js'
import type * as Notify from '../../core/Notify.js'
import type { Store } from '../../core/Store.js'
import { CallbackQuery, EmailBody, SmsBody, StatusQuery } from './schema.js'
import * as Service from './service.js'

/** Where the SMS API posts its status callbacks, on the gateway's public origin. */
export const callbackPath = '/api/v1/notify/callback/twilio'

/** The status callback URL of message `id` on `publicUrl`: the URL the SMS API is given, and the one it signs. */
export function callbackUrlOf(publicUrl: string, id: string): string {
  return `${publicUrl}${callbackPath}?id=${id}`
}

type Plugin = Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>

/** Email: validate, call the service with the payer. */
export function email(deps: Service.Deps) {
  return (new Elysia({ name: 'notify-email' }) as Plugin).post(
    '/api/v1/notify/email',
    ({ body, paid }) => Service.email(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
    { body: EmailBody },
  )
}

/**
 * SMS: validate (E.164, length), call the service with the payer; and the SMS API's status callback, free and
 * outside the catalog, verified against the URL it was given on `publicUrl` (none without a public URL).
 */
export function sms(deps: Service.Deps & { report: Notify.Texter['report']; publicUrl: string | undefined }) {
  return (new Elysia({ name: 'notify-sms' }) as Plugin)
    .post(
      '/api/v1/notify/sms',
      ({ body, paid }) => Service.sms(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
      { body: SmsBody },
    )
    .post(
      callbackPath,
      ({ query, body, headers }) => {
        if (!deps.publicUrl)
          throw new ForbiddenError('This gateway has no PUBLIC_URL, so it asked for no status callbacks.')
        // The URL the API was given (whatever a proxy in front made of the path): the one it signed.
        return Service.callback(deps, {
          id: query.id,
          url: callbackUrlOf(deps.publicUrl, query.id),
          params: body,
          signature: headers['x-twilio-signature'],
        })
      },
      { query: CallbackQuery, body: Type.Record(Type.String(), Type.String()) },
    )
}

/** Status: validate the id, answer the payer's own message. */
export function status(deps: { store: Store }) {
  return (new Elysia({ name: 'notify-status' }) as Plugin).get(
    '/api/v1/notify/status',
    ({ query, paid }) => Service.status(Module.withJournal(deps, paid), { ...query, caller: paid.payer }),
    // Before validation: an id of the original gateway gets its own answer rather than a bare pattern mismatch.
    { query: StatusQuery, transform: ({ query }) => Service.assertOwnId(query.id) },
  )
}
