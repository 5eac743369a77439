// A JSON tool: the EMI of a loan, its typed result and what the response headers said.
// TOOL_SERVICE_API_KEY=... TOOL_SERVICE_BASE_URL=http://localhost:8080 node examples/emi.mjs
import { ToolServiceClient, ToolServiceError } from '@tool-service/sdk';

const client = new ToolServiceClient();
try {
  const { data, meta } = await client.calculators_emi_calculator({ principal: 100000, rate: 10, tenure: 12 }).withResponse();
  console.log(`EMI ${data.result.emi} a month, ${data.result.totalInterest} interest in all`);
  console.log(`request ${meta.requestId}: ${meta.creditsRemaining} credits left, ${meta.rateLimit?.remaining ?? '?'} calls left this minute`);
} catch (error) {
  if (!(error instanceof ToolServiceError)) throw error;
  console.error(`${error.constructor.name} ${error.status ?? ''} ${error.code}: ${error.message} (request ${error.requestId ?? '-'})`);
  process.exitCode = 1;
}
