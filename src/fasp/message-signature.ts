/**
 * RFC 9421 HTTP message signatures with Ed25519: the signature base (section 2.5), the
 * `Signature-Input` / `Signature` fields, signing and verifying. Only what FASP needs: derived
 * components and header fields without component parameters, one signature per message.
 */
import type { KeyObject } from 'node:crypto';
import { signEd25519, verifyEd25519 } from './ed25519.js';
import { parseDictionary, serialiseBareItem, serialiseParameters, type BareItem } from './structured-fields.js';

/** A component's value (`@method` → "POST", `content-digest` → its field value), undefined when the message lacks it. */
export type ComponentResolver = (name: string) => string | undefined;

/** The signature parameters, in their serialised order. */
export type SignatureParameters = ReadonlyMap<string, BareItem>;

/** The `@signature-params` value: the covered components as an inner list of strings, then the parameters. */
export function signatureParamsValue(components: readonly string[], params: SignatureParameters): string {
  return `(${components.map((name) => serialiseBareItem(name)).join(' ')})${serialiseParameters(params)}`;
}

/** The signature base (RFC 9421 section 2.5); undefined when a covered component is missing or repeated. */
export function signatureBase(components: readonly string[], params: SignatureParameters, resolve: ComponentResolver): string | undefined {
  if (new Set(components).size !== components.length) return undefined;
  const lines: string[] = [];
  for (const name of components) {
    const value = resolve(name);
    if (value === undefined || /[\r\n]/.test(value)) return undefined;
    lines.push(`"${name}": ${name.startsWith('@') ? value : value.trim()}`);
  }
  lines.push(`"@signature-params": ${signatureParamsValue(components, params)}`);
  return lines.join('\n');
}

export interface SignOptions {
  readonly label?: string;
  readonly components: readonly string[];
  readonly params: SignatureParameters;
  readonly privateKey: KeyObject;
  readonly resolve: ComponentResolver;
  /** Signs the base with another algorithm than Ed25519 (an RSA actor key: rsa-v1_5-sha256). */
  readonly signer?: (base: string) => Buffer;
}

/** The `Signature-Input` and `Signature` field values; undefined when a covered component is missing. */
export function signMessage(options: SignOptions): { signatureInput: string; signature: string } | undefined {
  const label = options.label ?? 'sig1';
  const base = signatureBase(options.components, options.params, options.resolve);
  if (base === undefined) return undefined;
  const signature = options.signer ? options.signer(base) : signEd25519(options.privateKey, base);
  return {
    signatureInput: `${label}=${signatureParamsValue(options.components, options.params)}`,
    signature: `${label}=:${signature.toString('base64')}:`,
  };
}

export interface ReceivedSignature {
  readonly label: string;
  readonly components: readonly string[];
  readonly params: SignatureParameters;
  readonly signature: Uint8Array;
}

/** The signatures a message carries, by label, with what each covers; undefined when either field is malformed. */
export function parseSignatures(signatureInput: string, signature: string): ReceivedSignature[] | undefined {
  const inputs = parseDictionary(signatureInput);
  const signatures = parseDictionary(signature);
  if (inputs === undefined || signatures === undefined) return undefined;
  const parsed: ReceivedSignature[] = [];
  for (const [label, input] of inputs) {
    const bytes = signatures.get(label)?.value;
    if (!(bytes instanceof Uint8Array) || !Array.isArray(input.value)) continue;
    const components: string[] = [];
    for (const item of input.value as readonly { value: BareItem; params: ReadonlyMap<string, BareItem> }[]) {
      // Component parameters (;sf, ;key, ;req ...) are not supported: such a signature is not ours to check.
      if (typeof item.value !== 'string' || item.params.size > 0) return undefined;
      components.push(item.value);
    }
    parsed.push({ label, components, params: input.params, signature: bytes });
  }
  return parsed;
}

/** Whether `received` is a valid signature by `publicKey` over the message `resolve` describes. */
export function verifySignature(received: ReceivedSignature, publicKey: KeyObject, resolve: ComponentResolver): boolean {
  const base = signatureBase(received.components, received.params, resolve);
  return base !== undefined && verifyEd25519(publicKey, base, received.signature);
}
