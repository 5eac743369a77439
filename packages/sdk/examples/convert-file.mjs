// A file conversion: upload a Markdown file as a stream, then download the HTML behind the
// result's presigned link (no key is sent to it).
// node examples/convert-file.mjs [input.md] [output.html]   (without input.md a small sample is sent)
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { ToolServiceClient } from '@tool-service/sdk';

const [input, output = 'converted.html'] = process.argv.slice(2);
const client = new ToolServiceClient();
const file = input ? createReadStream(input) : Buffer.from('# Release notes\n\n- Faster uploads\n- *Typed* errors\n');
const converted = await client.documents_md_to_html({ file, fileName: input ? basename(input) : 'notes.md' });
console.log(`${converted.result.fileName} (${converted.result.sizeBytes} bytes, ${converted.result.mimeType}), link valid until ${converted.result.expiresAt}`);
const bytes = await client.files.download(converted);
await writeFile(output, bytes);
console.log(`wrote ${output}: ${bytes.byteLength} bytes`);
