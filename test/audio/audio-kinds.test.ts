// Audio kinds by content (files/kinds/audio.ts): real files made by the ffmpeg CLI are recognised
// whatever their name; playlists, concat lists, an AVI, image boxes and noise are not audio; the
// safety check refuses WAV and Ogg files cut short.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { audioFiles, mp3FrameLength } from '../../src/files/kinds/audio.ts';
import { AUDIO_FORMAT_IDS } from '../../src/engines/ffmpeg-formats.ts';
import { detectWith, refusedWith } from '../support/file-kinds.ts';
import { aviWithHls, concatList, hlsPlaylist, tone } from './support/audio-fixtures.ts';

const detect = (file: string): Promise<string | undefined> => detectWith(audioFiles, file);

describe('audio file kinds', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'audio-kinds-test-'));
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('recognises each format by content, under a misleading name', async () => {
    for (const format of AUDIO_FORMAT_IDS) {
      const file = await tone(path.join(dir, `${format}.data`), format, { seconds: 1, channels: 1 });
      assert.equal(await detect(file), format, format);
    }
  });

  it('finds MP3 audio after an ID3 tag larger than the head (cover art)', async () => {
    const mp3 = await readFile(await tone(path.join(dir, 'plain.mp3'), 'mp3', { seconds: 1, channels: 1 }));
    const start = mp3.subarray(0, 3).toString('latin1') === 'ID3' ? 10 + ((mp3[6]! << 21) | (mp3[7]! << 14) | (mp3[8]! << 7) | mp3[9]!) : 0;
    const frames = mp3.subarray(start);
    const tagSize = 100 * 1024;
    const tag = Buffer.alloc(10 + tagSize);
    tag.write('ID3', 0, 'latin1');
    tag[3] = 4;
    tag[6] = (tagSize >> 21) & 0x7f;
    tag[7] = (tagSize >> 14) & 0x7f;
    tag[8] = (tagSize >> 7) & 0x7f;
    tag[9] = tagSize & 0x7f;
    const file = path.join(dir, 'big-tag.bin');
    await writeFile(file, Buffer.concat([tag, frames]));
    assert.equal(await detect(file), 'mp3');
  });

  it('reads MPEG frame headers exactly', () => {
    // MPEG-1 layer III, 128 kbit/s, 44.1 kHz, no padding: 417 bytes.
    assert.equal(mp3FrameLength(Buffer.from([0xff, 0xfb, 0x90, 0x00]), 0), 417);
    assert.equal(mp3FrameLength(Buffer.from([0xff, 0xfb, 0x92, 0x00]), 0), 418);
    // Layer II, a free bitrate and a reserved sample rate are not MP3 frames.
    assert.equal(mp3FrameLength(Buffer.from([0xff, 0xfd, 0x90, 0x00]), 0), null);
    assert.equal(mp3FrameLength(Buffer.from([0xff, 0xfb, 0x00, 0x00]), 0), null);
    assert.equal(mp3FrameLength(Buffer.from([0xff, 0xfb, 0x9c, 0x00]), 0), null);
  });

  it('takes no playlist, concat list, AVI, image box or noise for audio', async () => {
    const heic = Buffer.alloc(32);
    heic.writeUInt32BE(24, 0);
    heic.write('ftypheic', 4, 'latin1');
    heic.write('mif1heic', 16, 'latin1');
    const ogvLike = Buffer.concat([Buffer.from('OggS\0\x02', 'latin1'), Buffer.alloc(20), Buffer.from([1, 30]), Buffer.from('\x80theora', 'latin1'), Buffer.alloc(40)]);
    const samples: [string, string | Buffer][] = [
      ['playlist.mp3', hlsPlaylist()],
      ['concat.mp3', concatList()],
      ['evil.avi', aviWithHls()],
      ['photo.m4a', heic],
      ['video.ogg', ogvLike],
      ['jpeg.mp3', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46])],
      // One lone frame-sync-like word is not an MP3.
      ['noise.mp3', Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x00]), Buffer.alloc(2000, 0x11)])],
    ];
    for (const [name, content] of samples) {
      const file = path.join(dir, name);
      await writeFile(file, content);
      assert.equal(await detect(file), undefined, name);
    }
  });

  it('refuses WAV and Ogg files cut short, and passes whole ones', async () => {
    for (const format of ['wav', 'ogg', 'opus'] as const) {
      const file = await tone(path.join(dir, `whole.${format}`), format, { seconds: 2, channels: 2 });
      await audioFiles.assertSafe!(file, format, undefined as never);
      const whole = await readFile(file);
      const cut = path.join(dir, `cut.${format}`);
      await writeFile(cut, whole.subarray(0, Math.floor(whole.length * 0.6)));
      await assert.rejects(audioFiles.assertSafe!(cut, format, undefined as never), refusedWith('corrupt_document'), format);
    }
  });
});
