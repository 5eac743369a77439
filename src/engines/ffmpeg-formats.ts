// The audio formats ffmpeg reads and writes for the service, and what each allows. The demuxer is
// forced from the kind the upload's content was detected as (never probed by ffmpeg): probing is
// how a playlist (hls), a concat list or an AVI carrying an HLS playlist gets ffmpeg to open
// other files, so no format outside this table can ever be chosen.

export type AudioFormatId = 'mp3' | 'wav' | 'ogg' | 'opus' | 'flac' | 'm4a';

export interface AudioFormat {
  id: AudioFormatId;
  label: string;
  extension: string;
  /** ffmpeg's demuxer for this container (forced with -f and the only one -format_whitelist allows) */
  demuxer: string;
  /** ffmpeg's muxer for the output */
  muxer: string;
  /** the encoder written with */
  encoder: string;
  /** the codec ffprobe must find in the first audio stream of an input of this kind */
  codecs: readonly string[];
  /** lossy formats take a bitrate (kbit/s) in this range; lossless ones take none */
  bitrateKbps?: { min: number; max: number; default: number };
  /** sample rates the encoder accepts (Hz) */
  sampleRates: readonly number[];
}

/** Sample rates people use; each encoder accepts a subset. */
const COMMON_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 88200, 96000] as const;

export const AUDIO_FORMATS: Readonly<Record<AudioFormatId, AudioFormat>> = {
  mp3: {
    id: 'mp3',
    label: 'MP3',
    extension: 'mp3',
    demuxer: 'mp3',
    muxer: 'mp3',
    encoder: 'libmp3lame',
    codecs: ['mp3'],
    bitrateKbps: { min: 32, max: 320, default: 192 },
    // MPEG-1/2/2.5 layer III rates only.
    sampleRates: [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000],
  },
  wav: {
    id: 'wav',
    label: 'WAV',
    extension: 'wav',
    demuxer: 'wav',
    muxer: 'wav',
    encoder: 'pcm_s16le',
    codecs: ['pcm_s16le', 'pcm_s24le', 'pcm_s32le', 'pcm_f32le', 'pcm_f64le', 'pcm_u8', 'pcm_alaw', 'pcm_mulaw', 'adpcm_ms', 'adpcm_ima_wav'],
    sampleRates: COMMON_RATES,
  },
  ogg: {
    id: 'ogg',
    label: 'Ogg Vorbis',
    extension: 'ogg',
    demuxer: 'ogg',
    muxer: 'ogg',
    encoder: 'libvorbis',
    codecs: ['vorbis'],
    bitrateKbps: { min: 48, max: 480, default: 160 },
    sampleRates: COMMON_RATES,
  },
  opus: {
    id: 'opus',
    label: 'Opus',
    extension: 'opus',
    demuxer: 'ogg',
    muxer: 'opus',
    encoder: 'libopus',
    codecs: ['opus'],
    bitrateKbps: { min: 6, max: 510, default: 128 },
    // libopus encodes only these.
    sampleRates: [8000, 12000, 16000, 24000, 48000],
  },
  flac: {
    id: 'flac',
    label: 'FLAC',
    extension: 'flac',
    demuxer: 'flac',
    muxer: 'flac',
    encoder: 'flac',
    codecs: ['flac'],
    sampleRates: COMMON_RATES,
  },
  m4a: {
    id: 'm4a',
    label: 'M4A (AAC)',
    extension: 'm4a',
    // ffmpeg's one ISO-BMFF demuxer; 'mov' is how -f and -format_whitelist name it.
    demuxer: 'mov',
    // The iPod flavour of MP4 writes the M4A brand players expect for audio.
    muxer: 'ipod',
    encoder: 'aac',
    codecs: ['aac', 'alac', 'mp3'],
    bitrateKbps: { min: 32, max: 512, default: 192 },
    sampleRates: [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 88200, 96000],
  },
};

export const AUDIO_FORMAT_IDS = Object.keys(AUDIO_FORMATS) as AudioFormatId[];

export function isAudioFormat(value: string): value is AudioFormatId {
  return Object.hasOwn(AUDIO_FORMATS, value);
}
