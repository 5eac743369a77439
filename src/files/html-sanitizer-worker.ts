import { writeFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { sanitizeHtml } from './html-sanitizer.ts';
import { readEngineOutput } from './engine-output.ts';

// Runs in a worker thread (see sanitizeHtmlFile): sanitising a large page takes seconds of CPU,
// which on the main thread would stall every other request.
const { inputPath, outputPath } = workerData as { inputPath: string; outputPath: string };
await writeFile(outputPath, sanitizeHtml(await readEngineOutput(inputPath, 'utf8')));
parentPort?.postMessage('done');
