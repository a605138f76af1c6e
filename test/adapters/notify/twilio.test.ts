import { describe, expect, test } from 'bun:test'
import { sign, twilio } from '../../../adapters/notify/twilio.js'

// Twilio's published request-validation example (twilio-php, twilio-csharp `RequestValidatorTest`).
const authToken = '12345'
const url = 'https://mycompany.com/myapp.php?foo=1&bar=2'
const params = {
  CallSid: 'CA1234567890ABCDE',
  Caller: '+14158675309',
  Digits: '1234',
  From: '+14158675309',
  To: '+18005551212',
}
const signature = 'RSOYDt4T1cUTdK1PDd93/VVr8B8='

describe('sign', () => {
  test("default: reproduces Twilio's published signature", () => {
    expect(sign({ url, params, authToken })).toBe(signature)
  })

  test('behavior: the order the parameters arrive in does not matter', () => {
    const { To, Digits, ...rest } = params
    expect(sign({ url, params: { To, ...rest, Digits }, authToken })).toBe(signature)
  })
})

describe('report', () => {
  const texter = twilio({ baseUrl: 'http://127.0.0.1:9', accountSid: 'AC1', authToken, from: '+15005550006' })
  const callback = { MessageSid: 'SM1', MessageStatus: 'delivered', AccountSid: 'AC1' }

  test('default: a signed delivered callback is a delivered report', () => {
    const signed = sign({ url, params: callback, authToken })
    expect(texter.report({ url, params: callback, signature: signed })).toEqual({
      providerId: 'SM1',
      event: { type: 'delivered' },
    })
  })

  test.each([
    ['queued', { type: 'accepted', providerId: 'SM1', response: 'queued' }],
    ['sent', { type: 'accepted', providerId: 'SM1', response: 'sent' }],
    ['undelivered', { type: 'bounced', reason: 'the carrier did not deliver it (error 30005)' }],
    ['failed', { type: 'failed', reason: 'the SMS API reported it failed (error 30005)' }],
    ['read', undefined],
  ])('behavior: MessageStatus %s', (status, event) => {
    const reported = { ...callback, MessageStatus: status, ErrorCode: '30005' }
    const signed = sign({ url, params: reported, authToken })
    expect(texter.report({ url, params: reported, signature: signed })?.event).toEqual(event as never)
  })

  test('security: a tampered parameter, another URL, another token or no signature is no report', () => {
    const signed = sign({ url, params: callback, authToken })
    expect(texter.report({ url, params: { ...callback, MessageStatus: 'failed' }, signature: signed })).toBeUndefined()
    expect(texter.report({ url: `${url}&x=1`, params: callback, signature: signed })).toBeUndefined()
    const forged = sign({ url, params: callback, authToken: 'other' })
    expect(texter.report({ url, params: callback, signature: forged })).toBeUndefined()
    expect(texter.report({ url, params: callback, signature: undefined })).toBeUndefined()
    expect(texter.report({ url, params: callback, signature: 'short' })).toBeUndefined()
  })
})
