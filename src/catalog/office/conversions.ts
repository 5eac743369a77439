import { defineConversions } from '../conversions/define-conversions.ts';
import { libreoffice } from '../conversions/converters.ts';
import { presentationToText } from './presentation-text.ts';

// Calc reads CSV only with an explicit filter: comma-separated, double-quoted, UTF-8, first line as is.
const fromCsv = { inputFilter: 'Text - txt - csv (StarCalc)', inputFilterOptions: '44,34,76,1' };

/** The office family: presentations and spreadsheets, one line each. */
export const officeConversions = defineConversions('office', [
  { from: 'ppt', to: 'txt', engine: 'LibreOffice', convert: presentationToText, description: 'The text of every slide, in order, slide by slide.', sampleText: 'Roadmap for the next quarter' },
  { from: 'pptx', to: 'txt', engine: 'LibreOffice', convert: presentationToText, description: 'The text of every slide, in order, slide by slide.', sampleText: 'Welcome to the kickoff meeting' },
  { from: 'ppt', to: 'pdf', engine: 'LibreOffice', convert: libreoffice('pdf'), description: 'One page per slide.', sampleText: 'Sales results by region' },
  { from: 'pptx', to: 'pdf', engine: 'LibreOffice', convert: libreoffice('pdf'), description: 'One page per slide.', sampleText: 'Product vision and goals' },
  { from: 'odp', to: 'pptx', engine: 'LibreOffice', convert: libreoffice('pptx'), description: 'OpenDocument presentation to PowerPoint.', sampleText: 'Team structure overview' },
  { from: 'xlsx', to: 'csv', engine: 'LibreOffice', convert: libreoffice('csv'), description: 'The first sheet as UTF-8 CSV (comma, double quotes), values as displayed.', sampleText: 'Widget inventory' },
  { from: 'xls', to: 'csv', engine: 'LibreOffice', convert: libreoffice('csv'), description: 'The first sheet as UTF-8 CSV (comma, double quotes), values as displayed.', sampleText: 'Regional totals' },
  { from: 'xlsx', to: 'pdf', engine: 'LibreOffice', pdfOptions: true, convert: libreoffice('pdf'), description: 'Every sheet, printed with its print ranges.', sampleText: 'Monthly expense report' },
  { from: 'csv', to: 'xlsx', engine: 'LibreOffice', convert: libreoffice('xlsx', fromCsv), description: 'UTF-8 CSV (comma, double quotes) to an Excel workbook; numbers stay numbers.', sampleText: 'Customer list export' },
  { from: 'ods', to: 'xlsx', engine: 'LibreOffice', convert: libreoffice('xlsx'), description: 'OpenDocument spreadsheet to Excel.', sampleText: 'Budget planning sheet' },
]);
