import { Type } from '@sinclair/typebox'

/** Query of `GET /api/v1/oracle/fx`. */
export const FxQuery = Type.Object({
  base: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z]{3}$',
      description: 'ISO 4217 code the rates are against, e.g. `EUR`. @default USD',
    }),
  ),
})
