// The image engine's worker process: libvips lives here, never in the server. A decoder bug on a
// hostile file kills this process only (the supervisor starts another), a job past its time limit
// is ended by killing it, and the memory libvips takes for a large image goes back to the system
// when the process is recycled instead of staying in the server's heap. One job at a time; the
// parent (image.ts) sends {id, job} and reads {id, ok, result} or {id, ok: false, code, message}.
import { configureSharp, ImageInputError, readableKinds, runImageJob, sharpVersions } from './image-process.ts';
import type { WorkerHello, WorkerReply, WorkerRequest } from './image-job.ts';

const send = (message: WorkerReply | WorkerHello): void => {
  process.send?.(message);
};

configureSharp(Math.max(1, Number(process.env['IMAGE_THREADS'] ?? '1') || 1));

process.on('message', (message: WorkerRequest) => {
  const { id, job } = message;
  runImageJob(job).then(
    (result) => send({ id, ok: true, result }),
    (error: unknown) => {
      const input = error instanceof ImageInputError;
      send({ id, ok: false, code: input ? error.code : null, message: error instanceof Error ? error.message : String(error) });
    },
  );
});

// The server went away: nothing is left to do.
process.on('disconnect', () => process.exit(0));

send({ ready: true, versions: sharpVersions(), readable: readableKinds() });
