import { secp256k1 } from '@noble/curves/secp256k1'
import { type RecoverPublicKey, recoverPublicKey, type SignDigest } from '../../core/Authorization.js'

/** The part of the `secp256k1` package (libsecp256k1 through N-API) that recovery uses. */
type Binding = {
  /** Recovers the public key of a 64-byte compact signature into `output`; throws when none can be recovered. */
  ecdsaRecover: (
    signature: Uint8Array,
    recovery: number,
    digest: Uint8Array,
    compressed: boolean,
    output?: Uint8Array,
  ) => Uint8Array
  /** Signs a digest (RFC 6979 nonce, low s): the 64-byte compact signature and its recovery id. */
  ecdsaSign: (
    digest: Uint8Array,
    privateKey: Uint8Array,
    options?: object,
    output?: Uint8Array,
  ) => { signature: Uint8Array; recid: number }
}

// The package's entry point falls back to a pure-JS implementation (elliptic) when its native addon is missing;
// `bindings` is the native addon alone, so it loads only where libsecp256k1 really runs.
/** Module of the `secp256k1` package that loads its native addon and nothing else. */
const nativeEntry = 'secp256k1/bindings'

/** A signature the loaded binding must recover exactly as the pure-JS implementation does before it is used. */
const selfTest = {
  digest: fromHex('c34cadea2b2c8b28a11abd8c6b0ed771a750d1d247da9b8d1c57bea229e815b8'),
  signature: fromHex(
    '94b92f4eab6f8bce9627f46c6f6346aa22488321bea84eb9f8585f64a777737c290430f3d550a84b8278c9296a267f8746590a628d905853366b86e49e61fee6',
  ),
  recovery: 1,
} as const

/**
 * {@link RecoverPublicKey} on libsecp256k1, through the native addon of the `secp256k1` package; `undefined`
 * when the package or its prebuilt addon for this platform is not installed, or when it disagrees with the
 * pure-JS implementation on a known signature (callers then use the pure-JS one).
 */
export async function libsecp256k1(parameters: libsecp256k1.Parameters = {}): Promise<RecoverPublicKey | undefined> {
  const binding = await load(parameters.specifier)
  if (!binding) return undefined
  const recover: RecoverPublicKey = ({ digest, signature, recovery }) => {
    try {
      return binding.ecdsaRecover(signature, recovery, digest, false, new Uint8Array(65))
    } catch {
      return undefined
    }
  }
  const expected = recoverPublicKey(selfTest)
  const actual = recover(selfTest)
  if (
    !expected ||
    !actual ||
    actual.length !== expected.length ||
    actual.some((byte, index) => byte !== expected[index])
  )
    return undefined
  return recover
}

/**
 * {@link SignDigest} on libsecp256k1, the same signatures as @noble/curves' (both RFC 6979, low s) in a tenth of the
 * time; `undefined` when the native addon is not installed or signs a known digest otherwise than @noble/curves.
 */
export async function libsecp256k1Sign(parameters: libsecp256k1.Parameters = {}): Promise<SignDigest | undefined> {
  const binding = await load(parameters.specifier)
  if (!binding) return undefined
  const sign: SignDigest = ({ digest, privateKey }) => {
    const { signature, recid } = binding.ecdsaSign(digest, privateKey, {}, new Uint8Array(64))
    return { signature, recovery: recid }
  }
  const privateKey = selfTest.digest.slice().reverse()
  const expected = secp256k1.sign(selfTest.digest, privateKey, { lowS: true })
  const actual = sign({ digest: selfTest.digest, privateKey })
  const same =
    actual.recovery === expected.recovery &&
    actual.signature.every((byte, index) => byte === expected.toCompactRawBytes()[index])
  return same ? sign : undefined
}

export declare namespace libsecp256k1 {
  type Parameters = {
    /** Module the native addon is loaded from. @default 'secp256k1/bindings' */
    specifier?: string
  }
}

/** The native addon of the `secp256k1` package, or `undefined` when it is not installed for this platform. */
async function load(specifier = nativeEntry): Promise<Binding | undefined> {
  try {
    const loaded = (await import(specifier)) as { default?: Binding } & Partial<Binding>
    const binding = (loaded.default ?? loaded) as Binding
    return typeof binding.ecdsaRecover === 'function' && typeof binding.ecdsaSign === 'function' ? binding : undefined
  } catch {
    return undefined
  }
}

function fromHex(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g)!, (pair) => Number.parseInt(pair, 16))
}
