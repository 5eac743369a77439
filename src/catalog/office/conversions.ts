import { defineConversions } from '../conversions/define-conversions.ts';
import { csvFormulasOption, csvToSpreadsheet, libreoffice } from '../conversions/converters.ts';
import { presentationToText } from './presentation-text.ts';

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
  {
    from: 'csv',
    to: 'xlsx',
    engine: 'LibreOffice',
    convert: csvToSpreadsheet('xlsx'),
    options: csvFormulasOption,
    description:
      'UTF-8 CSV (comma, double quotes) to an Excel workbook; numbers stay numbers. Cells are data: one starting with "=" stays text unless formulas=true.',
    sampleText: 'Customer list export',
  },
  { from: 'ods', to: 'xlsx', engine: 'LibreOffice', convert: libreoffice('xlsx'), description: 'OpenDocument spreadsheet to Excel.', sampleText: 'Budget planning sheet' },
]);
