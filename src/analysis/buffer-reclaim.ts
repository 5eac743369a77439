// Prompt reclaiming of the memory fetched pages leave behind on the main thread. A fetch reads a
// page as many socket chunks and joins them: megabytes of ArrayBuffers whose only handles are a
// few small Buffer objects. V8 frees such memory when it collects those handles, and it collects
// them only when the young generation fills (small objects fill it slowly) or when external
// memory has grown by about 64 MB: so a burst of 1 MB pages holds 60-100 MB of dead buffers. A
// young-generation collection (a scavenge: about a millisecond, off no one's critical path when
// run after the answer) every RECLAIM_BYTES of fetched pages frees them in time.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const RECLAIM_BYTES = 16 * 1024 * 1024;

type Collect = (options: { type: 'minor' | 'major'; execution: 'sync' | 'async' }) => void;

// --expose-gc set at run time reaches only contexts made afterwards: this one, for its gc
// function, which collects the one heap of the thread. Nothing else changes.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as Collect;
setFlagsFromString('--no-expose-gc');

let sinceLast = 0;

/** Counts bytes a fetch allocated; past RECLAIM_BYTES since the last time, asks for a scavenge. */
export function noteFetchedBytes(bytes: number): void {
  sinceLast += bytes;
  if (sinceLast < RECLAIM_BYTES) return;
  sinceLast = 0;
  collect({ type: 'major', execution: 'async' });
}
