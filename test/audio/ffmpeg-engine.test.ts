// The ffmpeg engine on real audio made by the ffmpeg CLI: every format read and written, the
// options, and hostile inputs (playlists and concat lists posing as audio, an AVI carrying an HLS
// playlist, cut files, an empty file, a file of another format than declared). Results are read
// back independently with the ffprobe/ffmpeg CLI, decoding every sample.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ServiceError } from '../../src/core/errors.ts';
import { FfmpegEngine } from '../../src/engines/ffmpeg.ts';
import { AUDIO_FORMAT_IDS, AUDIO_FORMATS, type AudioFormatId } from '../../src/engines/ffmpeg-formats.ts';
import { silentLogger } from '../../src/engines/engine-types.ts';
import { aviWithHls, concatList, decode, hlsPlaylist, tone, writeText } from './support/audio-fixtures.ts';

function rejectsWith(status: number, code: string, message?: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof ServiceError, `a ServiceError, got ${String(error)}`);
    assert.equal(error.status, status, error.message);
    assert.equal(error.error, code, error.message);
    if (message) assert.match(error.message, message);
    return true;
  };
}

describe('ffmpeg engine', () => {
  let dir: string;
  let engine: FfmpegEngine;
  /** a 3-second stereo tone in every format */
  const sources = {} as Record<AudioFormatId, string>;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'audio-ffmpeg-test-'));
    engine = new FfmpegEngine({ logger: silentLogger });
    for (const format of AUDIO_FORMAT_IDS) sources[format] = await tone(path.join(dir, `tone.${format}`), format, { seconds: 3, channels: 2 });
  });

  after(async () => {
    await engine?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reports its version and state', async () => {
    const probe = await engine.availability();
    assert.equal(probe.ok, true);
    assert.match(probe.ok ? probe.version : '', /^\d+\.\d+/);
    const status = await engine.status();
    assert.equal(status.name, 'ffmpeg');
  });

  it('probes each format with its own demuxer', async () => {
    const expected: Record<AudioFormatId, string> = { mp3: 'mp3', wav: 'pcm_s16le', ogg: 'vorbis', opus: 'opus', flac: 'flac', m4a: 'aac' };
    for (const format of AUDIO_FORMAT_IDS) {
      const info = await engine.probeAudio({ inputPath: sources[format], format });
      assert.equal(info.codec, expected[format], format);
      assert.equal(info.channels, 2, format);
      assert.ok(info.durationSeconds !== null && Math.abs(info.durationSeconds - 3) < 0.1, `${format}: ${info.durationSeconds}`);
    }
  });

  for (const from of AUDIO_FORMAT_IDS) {
    it(`converts ${from} to every other format, keeping duration and channels`, async () => {
      for (const to of AUDIO_FORMAT_IDS) {
        if (to === from) continue;
        const output = path.join(dir, `out-${from}-to-${to}.${AUDIO_FORMATS[to].extension}`);
        const result = await engine.convertAudio({ inputPath: sources[from], format: from, outputPath: output, to });
        const decoded = await decode(output);
        assert.equal(decoded.channels, 2, `${from}->${to}`);
        assert.ok(Math.abs(decoded.decodedSeconds - 3) < 0.1, `${from}->${to}: decoded ${decoded.decodedSeconds} s`);
        assert.equal(result.output.channels, 2);
        assert.equal(decoded.codec, { mp3: 'mp3', wav: 'pcm_s16le', ogg: 'vorbis', opus: 'opus', flac: 'flac', m4a: 'aac' }[to], `${from}->${to}`);
      }
    });
  }

  it('runs in folders of its own: beside the input there is only the input and the result', async () => {
    const own = await mkdtemp(path.join(dir, 'call-'));
    const input = path.join(own, 'upload.wav');
    await writeFile(input, await readFile(sources.wav));
    const output = path.join(own, 'result.mp3');
    const result = await engine.convertAudio({ inputPath: input, format: 'wav', outputPath: output, to: 'mp3' });
    assert.ok(result.output.durationSeconds !== null && result.output.durationSeconds > 2.5);
    assert.ok((await stat(output)).isFile());
    assert.deepEqual((await readdir(own)).sort(), ['result.mp3', 'upload.wav']);
  });

  it('honours bitrate, sample rate and channels', async () => {
    const output = path.join(dir, 'options.mp3');
    await engine.convertAudio({ inputPath: sources.wav, format: 'wav', outputPath: output, to: 'mp3', bitrateKbps: 64, sampleRate: 22050, channels: 1 });
    const decoded = await decode(output);
    assert.equal(decoded.channels, 1);
    assert.equal(decoded.sampleRate, 22050);
    assert.equal(decoded.bitRate, 64000);
    assert.ok(Math.abs(decoded.decodedSeconds - 3) < 0.1, `decoded ${decoded.decodedSeconds} s`);
    const flac = path.join(dir, 'options.flac');
    await engine.convertAudio({ inputPath: sources.mp3, format: 'mp3', outputPath: flac, to: 'flac', sampleRate: 48000 });
    assert.equal((await decode(flac)).sampleRate, 48000);
  });

  it('refuses option values the encoder cannot take (a caller bug, not user input)', async () => {
    const output = path.join(dir, 'bad-options.opus');
    await assert.rejects(engine.convertAudio({ inputPath: sources.wav, format: 'wav', outputPath: output, to: 'opus', sampleRate: 44100 }), /cannot be written at 44100 Hz/);
    await assert.rejects(engine.convertAudio({ inputPath: sources.wav, format: 'wav', outputPath: output, to: 'flac', bitrateKbps: 128 }), /takes no bitrate/);
    await assert.rejects(engine.convertAudio({ inputPath: sources.wav, format: 'wav', outputPath: output, to: 'mp3', bitrateKbps: 500 }), /outside 32-320/);
  });

  it('reads an HLS playlist or a concat list named .mp3 as nothing but mp3: 422, no file opened', async () => {
    const secret = await tone(path.join(dir, 'secret.mp3'), 'mp3', { seconds: 2, channels: 1 });
    for (const [name, text] of [
      ['playlist.mp3', hlsPlaylist(`file://${secret}`)],
      ['concat.mp3', concatList(secret)],
    ] as const) {
      const input = await writeText(dir, name, text);
      const output = path.join(dir, `${name}.wav`);
      await assert.rejects(engine.convertAudio({ inputPath: input, format: 'mp3', outputPath: output, to: 'wav' }), rejectsWith(422, 'unprocessable_input', /not a readable MP3 file/));
      await assert.rejects(stat(output), { code: 'ENOENT' });
    }
  });

  it('an AVI carrying an HLS playlist in a GAB2 subtitle is refused by every audio demuxer', async () => {
    const input = await writeText(dir, 'evil.wav', aviWithHls('file:///etc/passwd'));
    for (const format of AUDIO_FORMAT_IDS) {
      const output = path.join(dir, `evil-${format}.mp3`);
      await assert.rejects(engine.convertAudio({ inputPath: input, format, outputPath: output, to: 'mp3' }), rejectsWith(422, 'unprocessable_input'), format);
      await assert.rejects(stat(output), { code: 'ENOENT' });
    }
  });

  it('refuses a file of another format than the one it was detected as (the demuxer is never guessed)', async () => {
    await assert.rejects(
      engine.convertAudio({ inputPath: sources.ogg, format: 'mp3', outputPath: path.join(dir, 'mismatch.wav'), to: 'wav' }),
      rejectsWith(422, 'unprocessable_input', /not a readable MP3 file/),
    );
    // Opus in Ogg is not Vorbis: the codec is checked too.
    await assert.rejects(
      engine.convertAudio({ inputPath: sources.opus, format: 'ogg', outputPath: path.join(dir, 'opus-as-ogg.wav'), to: 'wav' }),
      rejectsWith(422, 'unprocessable_input', /holds opus audio/),
    );
  });

  it('answers 422 for a file cut in half, in every format', async () => {
    const long = {} as Record<AudioFormatId, string>;
    for (const format of AUDIO_FORMAT_IDS) long[format] = await tone(path.join(dir, `long.${format}`), format, { seconds: 10, channels: 2 });
    for (const format of AUDIO_FORMAT_IDS) {
      const whole = await readFile(long[format]);
      const cut = await writeText(dir, `cut.${format}`, whole.subarray(0, Math.floor(whole.length / 2)));
      await assert.rejects(engine.convertAudio({ inputPath: cut, format, outputPath: path.join(dir, `cut-${format}.wav`), to: 'wav' }), (error: unknown) => {
        assert.ok(error instanceof ServiceError, String(error));
        assert.equal(error.status, 422, `${format}: ${error.message}`);
        assert.ok(['corrupt_document', 'unprocessable_input'].includes(error.error), `${format}: ${error.error}`);
        return true;
      }, format);
    }
  });

  it('answers 422 for an empty file', async () => {
    const empty = await writeText(dir, 'empty.mp3', '');
    await assert.rejects(engine.convertAudio({ inputPath: empty, format: 'mp3', outputPath: path.join(dir, 'empty.wav'), to: 'wav' }), rejectsWith(422, 'unprocessable_input', /empty/));
  });

  it('refuses audio longer than its limit, and output beyond its limit', async () => {
    const short = new FfmpegEngine({ logger: silentLogger, maxDurationSeconds: 2, maxOutputBytes: 100_000 });
    try {
      await assert.rejects(short.convertAudio({ inputPath: sources.mp3, format: 'mp3', outputPath: path.join(dir, 'long.wav'), to: 'wav' }), rejectsWith(422, 'unprocessable_input', /longer than/));
      const oneSecond = await tone(path.join(dir, 'one.flac'), 'flac', { seconds: 1.5, channels: 2 });
      // 1.5 s of 44.1 kHz stereo 16-bit WAV is 264 600 bytes.
      await assert.rejects(short.convertAudio({ inputPath: oneSecond, format: 'flac', outputPath: path.join(dir, 'big.wav'), to: 'wav' }), rejectsWith(422, 'output_too_large'));
    } finally {
      await short.close();
    }
  });

  it('keeps the job folder out of its messages', async () => {
    const bad = await writeText(dir, 'garbage.flac', Buffer.alloc(4096, 7));
    await assert.rejects(engine.convertAudio({ inputPath: bad, format: 'flac', outputPath: path.join(dir, 'garbage.wav'), to: 'wav' }), (error: unknown) => {
      assert.ok(error instanceof ServiceError);
      assert.equal(error.status, 422);
      assert.ok(!error.detail.includes(dir) && !error.message.includes(dir), error.detail);
      return true;
    });
  });

  it('writes nothing outside the output it was given', async () => {
    const sub = await mkdtemp(path.join(dir, 'job-'));
    const input = path.join(sub, 'in.wav');
    await writeFile(input, await readFile(sources.wav));
    await engine.convertAudio({ inputPath: input, format: 'wav', outputPath: path.join(sub, 'out.mp3'), to: 'mp3' });
    const { readdir } = await import('node:fs/promises');
    assert.deepEqual((await readdir(sub)).sort(), ['in.wav', 'out.mp3']);
  });
});
