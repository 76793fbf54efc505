import { FrameReader, SERVER_NOTICE_MAX_BYTES } from './message-bound.js';

/** One PostgreSQL backend message's header and `bodyBytes` of body. */
function frame(type: string, bodyBytes: number, body = Buffer.alloc(bodyBytes, 0x61)): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeUInt32BE(bodyBytes + 4, 1);
  return Buffer.concat([header, body]);
}

describe('FrameReader', () => {
  it('follows frames split anywhere across chunks, passing large rows and copy data, to the error over the bound', () => {
    const small = Buffer.concat([frame('T', 30), frame('D', 12), frame('d', 10), frame('E', 200), frame('Z', 1)]);
    const large = Buffer.concat([
      frame('D', 3 * SERVER_NOTICE_MAX_BYTES),
      frame('N', SERVER_NOTICE_MAX_BYTES),
      frame('E', SERVER_NOTICE_MAX_BYTES),
      small,
    ]);
    const cuts: [Buffer, number[]][] = [
      [small, [1, 2, 3, 5, 7, small.length]],
      [large, [4093, 65536, large.length]],
    ];
    // Then an error over the bound: seen only by a reader that kept in step with every frame before it.
    const refused = frame('E', 0);
    refused.writeUInt32BE(SERVER_NOTICE_MAX_BYTES + 5, 1);
    for (const [stream, sizes] of cuts) {
      for (const size of sizes) {
        const reader = new FrameReader();
        const whole = Buffer.concat([stream, refused]);
        const answers: (string | undefined)[] = [];
        for (let at = 0; at < whole.length; at += size) answers.push(reader.read(whole.subarray(at, at + size)));
        expect(answers.filter((a) => a !== undefined)).toEqual([`an error of ${SERVER_NOTICE_MAX_BYTES + 1} bytes`]);
        expect(answers.at(-1)).toBe(`an error of ${SERVER_NOTICE_MAX_BYTES + 1} bytes`);
      }
    }
  });

  it('refuses an error or a notice over the bound at its header, wherever the header is cut', () => {
    const tooLong = SERVER_NOTICE_MAX_BYTES + 1;
    for (const [type, kind] of [
      ['E', 'an error'],
      ['N', 'a notice'],
    ]) {
      const stream = Buffer.concat([frame('Z', 1), frame(type!, 0).subarray(0, 5)]);
      stream.writeUInt32BE(tooLong + 4, stream.length - 4);
      const reader = new FrameReader();
      expect(reader.read(stream.subarray(0, stream.length - 2))).toBeUndefined();
      expect(reader.read(stream.subarray(stream.length - 2))).toBe(`${kind} of ${tooLong} bytes`);
    }
  });
});
