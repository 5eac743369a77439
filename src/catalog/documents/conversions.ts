import { defineConversions } from '../conversions/define-conversions.ts';
import { htmlFileToPdf, libreoffice, markdownToPdf, pandoc, pdfToDocx, pdfToHtml, pdfToText, textToMarkdown, textToPdf } from '../conversions/converters.ts';

// Writer reads plain text only with an explicit import filter; every other source is typed by content.
const fromText = { inputFilter: 'Text (encoded)', inputFilterOptions: 'UTF8' };

/** The documents family: 25 conversions, one line each. */
export const documentConversions = defineConversions('documents', [
  { from: 'docx', to: 'pdf', engine: 'LibreOffice', pdfOptions: true, convert: libreoffice('pdf'), description: 'Keeps layout, fonts, images and tables.', sampleText: 'Quarterly revenue grew by twelve percent' },
  { from: 'pdf', to: 'docx', engine: 'poppler + pandoc', convert: pdfToDocx, description: 'Recovers the text as editable paragraphs with bold and italics; the page layout is not kept.', sampleText: 'Signed agreement between both parties' },
  { from: 'txt', to: 'docx', engine: 'LibreOffice', convert: libreoffice('docx', fromText), description: 'Each line becomes a paragraph (UTF-8 text).', sampleText: 'Meeting notes for the planning session' },
  { from: 'pdf', to: 'txt', engine: 'poppler', convert: pdfToText, description: 'Extracts the text in reading order (UTF-8).', sampleText: 'Invoice number four hundred and two' },
  { from: 'docx', to: 'txt', engine: 'pandoc', convert: pandoc('docx', 'plain'), description: 'Plain UTF-8 text of the document body.', sampleText: 'The committee approved the budget' },
  { from: 'html', to: 'txt', engine: 'pandoc', convert: pandoc('html', 'plain'), description: 'The visible text, with paragraphs and lists kept as lines.', sampleText: 'Welcome to the product launch' },
  { from: 'html', to: 'pdf', engine: 'Chromium', pdfOptions: true, convert: htmlFileToPdf, description: 'Real browser layout with CSS; no network: only the uploaded page renders (inline images and styles work).', sampleText: 'Printable release notes for version two' },
  { from: 'pdf', to: 'html', engine: 'poppler', convert: pdfToHtml, description: 'The text with its paragraphs and emphasis as a standalone HTML page.', sampleText: 'Annual report for the shareholders' },
  { from: 'md', to: 'html', engine: 'pandoc', convert: pandoc('gfm', 'html5', { standalone: true }), description: 'GitHub-flavoured Markdown to a standalone HTML5 page.', sampleText: 'Installation guide for new developers' },
  { from: 'html', to: 'docx', engine: 'pandoc', convert: pandoc('html', 'docx'), description: 'Headings, lists, tables, links and emphasis become Word styles.', sampleText: 'Customer onboarding checklist' },
  { from: 'txt', to: 'md', engine: 'built-in', convert: textToMarkdown, description: 'Escapes characters Markdown would read as syntax, so the text renders as written.', sampleText: 'Plain text that should stay plain' },
  { from: 'txt', to: 'pdf', engine: 'Chromium', pdfOptions: true, convert: textToPdf, description: 'Monospaced, wrapped lines; the layout of the text is kept.', sampleText: 'Server log excerpt for the incident review' },
  { from: 'rtf', to: 'pdf', engine: 'LibreOffice', pdfOptions: true, convert: libreoffice('pdf'), description: 'Keeps fonts, colours and tables.', sampleText: 'Letter of recommendation for the candidate' },
  { from: 'md', to: 'pdf', engine: 'pandoc + Chromium', pdfOptions: true, convert: markdownToPdf, description: 'Rendered as GitHub-flavoured Markdown, typeset in a browser.', sampleText: 'Architecture decision record number seven' },
  { from: 'docx', to: 'html', engine: 'pandoc', convert: pandoc('docx', 'html5', { standalone: true }), description: 'A standalone HTML5 page with headings, lists, tables and links.', sampleText: 'Employee handbook introduction' },
  { from: 'docx', to: 'md', engine: 'pandoc', convert: pandoc('docx', 'gfm'), description: 'GitHub-flavoured Markdown with headings, lists, tables and links.', sampleText: 'Design review summary' },
  { from: 'html', to: 'md', engine: 'pandoc', convert: pandoc('html', 'gfm'), description: 'GitHub-flavoured Markdown; scripts and styles are dropped.', sampleText: 'Frequently asked questions' },
  { from: 'md', to: 'docx', engine: 'pandoc', convert: pandoc('gfm', 'docx'), description: 'Headings, lists, code, tables and links become Word styles.', sampleText: 'Sprint retrospective outcomes' },
  { from: 'odt', to: 'pdf', engine: 'LibreOffice', convert: libreoffice('pdf'), description: 'Keeps layout, fonts, images and tables.', sampleText: 'Project charter for the migration' },
  { from: 'odt', to: 'docx', engine: 'LibreOffice', convert: libreoffice('docx'), description: 'OpenDocument to Word with styles kept.', sampleText: 'Terms of reference for the working group' },
  { from: 'docx', to: 'odt', engine: 'LibreOffice', convert: libreoffice('odt'), description: 'Word to OpenDocument with styles kept.', sampleText: 'Research proposal abstract' },
  { from: 'rtf', to: 'docx', engine: 'LibreOffice', convert: libreoffice('docx'), description: 'Rich Text to Word with fonts and tables kept.', sampleText: 'Statement of work draft' },
  { from: 'doc', to: 'docx', engine: 'LibreOffice', convert: libreoffice('docx'), description: 'Word 97-2003 to the current Word format.', sampleText: 'Legacy contract from the archive' },
  { from: 'doc', to: 'pdf', engine: 'LibreOffice', convert: libreoffice('pdf'), description: 'Word 97-2003 to PDF with the layout kept.', sampleText: 'Old policy document for printing' },
  { from: 'md', to: 'txt', engine: 'pandoc', convert: pandoc('gfm', 'plain'), description: 'The text without Markdown syntax.', sampleText: 'Changelog entry for the patch release' },
]);
