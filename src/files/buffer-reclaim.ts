// Prompt reclaiming of the memory that big network reads leave behind on the main thread. Node
// hands every socket chunk to JavaScript as a Buffer of its own: megabytes of ArrayBuffers whose
// only handles are small Buffer objects, which V8 frees only when it collects those handles. Two
// readers move such bytes in bulk, and each asks for the collection that suits it:
//
// - Pages fetched for analysis (noteFetchedBytes): a fetch joins its chunks into one page that
//   lives until analysed, so a burst of 1 MB pages held 60-100 MB of dead buffers until external
//   memory had grown by about 64 MB. A collection is asked for (asynchronously: V8 runs it as
//   incremental marking) after every FETCH_RECLAIM_BYTES fetched.
// - Uploads streamed to disk (noteStreamedBytes): each chunk is dead once written, but a 28 MB
//   upload set off an incremental mark-compact of the whole server heap (~100 MB) during nearly
//   every upload, 40-110 ms of main-thread marking each, which is time the upload's socket is not
//   read (bench:images, --trace-gc: 30 mark-compacts in 24 uploads of a 12 MP PNG). A scavenge of
//   the young generation (a median 0.5 ms) after every STREAM_RECLAIM_BYTES received frees the
//   dead chunks while they are young, and the mark-compacts stop (3-7 in the same run; to-jpg went
//   from 1.6x to 1.25-1.27x of sharp in-process). Measured, not derived: a scavenge every 4 or 8 MB
//   kept them away, every 12 or 16 MB did not (20-40 mark-compacts), so 8 MB it is.
// - Files a conversion streams through JavaScript (noteStreamedBytes too): txt-to-md reads its input
//   in 64 KB chunks and writes the Markdown as it goes, each chunk dead once written. On a server
//   that had not yet done anything that large, the first 100 MB conversion left up to 27 MB of dead
//   ArrayBuffers waiting for a collection and grew RSS by 72-78 MB, which it kept (bench:conversions
//   section 4 alone). Counted with the uploads, they are freed young: +28 MB.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const FETCH_RECLAIM_BYTES = 16 * 1024 * 1024;
const STREAM_RECLAIM_BYTES = 8 * 1024 * 1024;

type Collect = (options: { type: 'minor' | 'major'; execution: 'sync' | 'async' }) => void;

// --expose-gc set at run time reaches only contexts made afterwards: this one, for its gc
// function, which collects the one heap of the thread. Nothing else changes.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as Collect;
setFlagsFromString('--no-expose-gc');

/** A counter of bytes that runs `collection` each time `everyBytes` more have been noted. */
function reclaimEvery(everyBytes: number, collection: Parameters<Collect>[0]): (bytes: number) => void {
  let sinceLast = 0;
  return (bytes) => {
    sinceLast += bytes;
    if (sinceLast < everyBytes) return;
    sinceLast = 0;
    collect(collection);
  };
}

/** Counts bytes a fetch allocated; past FETCH_RECLAIM_BYTES since the last time, asks for a collection. */
export const noteFetchedBytes = reclaimEvery(FETCH_RECLAIM_BYTES, { type: 'major', execution: 'async' });

/**
 * Counts bytes of a file streamed through JavaScript (an upload's body on its way to disk, a
 * conversion's input on its way through); past STREAM_RECLAIM_BYTES since the last time, across
 * every such stream of the process, runs a scavenge. Bounded work: one scavenge per 8 MB,
 * whatever the number of streams.
 */
export const noteStreamedBytes = reclaimEvery(STREAM_RECLAIM_BYTES, { type: 'minor', execution: 'sync' });
