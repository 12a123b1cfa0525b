/**
 * The part of MessagePack (github.com/msgpack/msgpack/blob/master/spec.md) that Neovim's RPC
 * uses, for driving a real `nvim --embed` from the tests: nil, booleans, integers, float64,
 * strings, binaries, arrays, maps, and ext values (Neovim's Buffer, Window and Tabpage handles,
 * decoded as `{ ext, data }`). Written from the spec for the tests only.
 */

export interface ExtValue {
  ext: number;
  data: Buffer;
}

export type Packable = null | boolean | number | string | Buffer | Packable[] | { [key: string]: Packable };

function header(small: number, limit: number, codes: [number, number, number], length: number): Buffer {
  if (length < limit) return Buffer.from([small | length]);
  if (length < 0x10000) return Buffer.from([codes[1], length >> 8, length & 0xff]);
  const out = Buffer.alloc(5);
  out[0] = codes[2];
  out.writeUInt32BE(length, 1);
  return out;
}

function encodeNumber(value: number): Buffer {
  if (Number.isInteger(value) && Number.isSafeInteger(value)) {
    if (value >= 0 && value < 0x80) return Buffer.from([value]);
    if (value < 0 && value >= -32) return Buffer.from([0xe0 | (value + 32)]);
    const out = Buffer.alloc(9);
    out[0] = 0xd3; // int64: one form for the rest keeps this short
    out.writeBigInt64BE(BigInt(value), 1);
    return out;
  }
  const out = Buffer.alloc(9);
  out[0] = 0xcb;
  out.writeDoubleBE(value, 1);
  return out;
}

export function encode(value: Packable): Buffer {
  if (value === null) return Buffer.from([0xc0]);
  if (value === false) return Buffer.from([0xc2]);
  if (value === true) return Buffer.from([0xc3]);
  if (typeof value === 'number') return encodeNumber(value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    const head =
      bytes.length < 32
        ? Buffer.from([0xa0 | bytes.length])
        : bytes.length < 0x100
          ? Buffer.from([0xd9, bytes.length])
          : header(0, 0, [0, 0xda, 0xdb], bytes.length);
    return Buffer.concat([head, bytes]);
  }
  if (Buffer.isBuffer(value)) {
    const head = value.length < 0x100 ? Buffer.from([0xc4, value.length]) : header(0, 0, [0, 0xc5, 0xc6], value.length);
    return Buffer.concat([head, value]);
  }
  if (Array.isArray(value))
    return Buffer.concat([header(0x90, 16, [0x90, 0xdc, 0xdd], value.length), ...value.map(encode)]);
  const entries = Object.entries(value);
  return Buffer.concat([
    header(0x80, 16, [0x80, 0xde, 0xdf], entries.length),
    ...entries.flatMap(([key, item]) => [encode(key), encode(item)]),
  ]);
}

/** Thrown when the buffer ends inside a value: wait for more bytes. */
export class Incomplete extends Error {}

export type Unpacked = null | boolean | number | string | Buffer | ExtValue | Unpacked[] | { [key: string]: Unpacked };

/** Decodes one value at `offset`; returns it and the offset after it. */
export function decode(bytes: Buffer, offset: number): [Unpacked, number] {
  const need = (count: number) => {
    if (offset + count > bytes.length) throw new Incomplete();
  };
  need(1);
  const code = bytes[offset] as number;
  offset += 1;
  const take = (count: number): Buffer => {
    need(count);
    const slice = bytes.subarray(offset, offset + count);
    offset += count;
    return slice;
  };
  const uint = (count: number): number => {
    const slice = take(count);
    return count === 1 ? slice.readUInt8(0) : count === 2 ? slice.readUInt16BE(0) : slice.readUInt32BE(0);
  };
  const list = (length: number): [Unpacked, number] => {
    const items: Unpacked[] = [];
    for (let i = 0; i < length; i++) {
      const [item, next] = decode(bytes, offset);
      items.push(item);
      offset = next;
    }
    return [items, offset];
  };
  const map = (length: number): [Unpacked, number] => {
    const object: { [key: string]: Unpacked } = {};
    for (let i = 0; i < length; i++) {
      const [key, afterKey] = decode(bytes, offset);
      const [item, afterItem] = decode(bytes, afterKey);
      object[String(key)] = item;
      offset = afterItem;
    }
    return [object, offset];
  };
  const ext = (length: number): [Unpacked, number] => {
    const type = take(1).readInt8(0);
    return [{ ext: type, data: Buffer.from(take(length)) }, offset];
  };
  if (code < 0x80) return [code, offset];
  if (code >= 0xe0) return [code - 0x100, offset];
  if (code >= 0x80 && code <= 0x8f) return map(code & 0x0f);
  if (code >= 0x90 && code <= 0x9f) return list(code & 0x0f);
  if (code >= 0xa0 && code <= 0xbf) return [take(code & 0x1f).toString('utf8'), offset];
  switch (code) {
    case 0xc0:
      return [null, offset];
    case 0xc2:
      return [false, offset];
    case 0xc3:
      return [true, offset];
    case 0xc4:
    case 0xc5:
    case 0xc6:
      return [Buffer.from(take(uint(code === 0xc4 ? 1 : code === 0xc5 ? 2 : 4))), offset];
    case 0xc7:
    case 0xc8:
    case 0xc9:
      return ext(uint(code === 0xc7 ? 1 : code === 0xc8 ? 2 : 4));
    case 0xca:
      return [take(4).readFloatBE(0), offset];
    case 0xcb:
      return [take(8).readDoubleBE(0), offset];
    case 0xcc:
      return [uint(1), offset];
    case 0xcd:
      return [uint(2), offset];
    case 0xce:
      return [uint(4), offset];
    case 0xcf:
      return [Number(take(8).readBigUInt64BE(0)), offset];
    case 0xd0:
      return [take(1).readInt8(0), offset];
    case 0xd1:
      return [take(2).readInt16BE(0), offset];
    case 0xd2:
      return [take(4).readInt32BE(0), offset];
    case 0xd3:
      return [Number(take(8).readBigInt64BE(0)), offset];
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8:
      return ext(1 << (code - 0xd4));
    case 0xd9:
    case 0xda:
    case 0xdb:
      return [take(uint(code === 0xd9 ? 1 : code === 0xda ? 2 : 4)).toString('utf8'), offset];
    case 0xdc:
    case 0xdd:
      return list(uint(code === 0xdc ? 2 : 4));
    case 0xde:
    case 0xdf:
      return map(uint(code === 0xde ? 2 : 4));
    default:
      throw new Error(`msgpack: unknown type byte 0x${code.toString(16)}`);
  }
}
