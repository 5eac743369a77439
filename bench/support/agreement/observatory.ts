/** The parent side of observatory-child.ts: fork it trusting the test CA, scan hosts, stop it. */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { ObservatoryAnswer } from './observatory-child.ts';

const CHILD = fileURLToPath(new URL('./observatory-child.ts', import.meta.url));

export async function observatoryGrades(hosts: readonly string[], site: { address: string; caFile: string }, timeoutMs: number): Promise<Map<string, ObservatoryAnswer>> {
  const child = fork(CHILD, [], { env: { ...process.env, NODE_EXTRA_CA_CERTS: site.caFile, BENCH_SITE_ADDRESS: site.address }, execArgv: ['--disable-warning=ExperimentalWarning'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const answers = new Map<string, ObservatoryAnswer>();
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    const [ready] = (await once(child, 'message')) as [{ kind: string }];
    if (ready.kind !== 'ready') throw new Error(`observatory child: unexpected ${JSON.stringify(ready)}`);
    const done = new Promise<void>((resolve, reject) => {
      child.on('message', (m: ObservatoryAnswer | { kind: 'observatory-done' }) => {
        if (m.kind === 'observatory') answers.set(m.host, m);
        else if (m.kind === 'observatory-done') resolve();
      });
      child.once('exit', (code, signal) => reject(new Error(`the Observatory child exited (${code ?? signal}) after ${answers.size} of ${hosts.length} hosts`)));
    });
    child.send({ hosts });
    await done;
    return answers;
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
}
