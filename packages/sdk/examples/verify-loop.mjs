// The verify loop of rule 7 on a local HTML file (analysed free): solve_task audits it, then for
// each round the rank-1 fix is printed, you edit the file, press Enter, and verify_task re-checks
// the file's new content, until the server says verified or stops the loop.
// node examples/verify-loop.mjs page.html ["Audit the SEO of my page"]
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { ToolServiceClient } from '@tool-service/sdk';

const [file, goal = 'Audit the SEO of my page'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node examples/verify-loop.mjs page.html ["goal"]');
  process.exit(2);
}
const client = new ToolServiceClient();
const page = () => ({ html: readFileSync(file, 'utf8') });
const prompt = createInterface({ input: process.stdin, output: process.stdout });
try {
  const solved = await client.mcp.solve_task({ goal, input: page() });
  console.log(`${solved.status}: gate ${solved.loop?.gate}, ${solved.loop?.next ?? ''}`);
  const { status, rounds, last } = await client.mcp.verifyUntilPass({
    goal,
    baseline: solved,
    applyFix: async (fix) => {
      console.log(`\nfix ${fix.rule} (${fix.patchType}): ${fix.change}\n  done when: ${JSON.stringify(fix.acceptance)}`);
      await prompt.question(`edit ${file}, then press Enter to verify `);
    },
    input: page,
    onRound: (round) => console.log(`round ${round.round}: ${round.status}`),
  });
  console.log(`\n${status} after ${rounds.length} round(s)${last.loop?.stop ? `, stopped: ${last.loop.stop} (escalate to a human)` : ''}`);
} finally {
  prompt.close();
  await client.mcp.close();
}
