import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { invalidInput, type FieldIssue } from '../../core/errors.ts';
import { roundTo } from '../../core/numbers.ts';

const UNITS = {
  metric: { weight: { min: 1, max: 700, unit: 'kg' }, height: { min: 30, max: 300, unit: 'cm' } },
  imperial: { weight: { min: 2, max: 1500, unit: 'lb' }, height: { min: 12, max: 120, unit: 'in' } },
} as const;

const CATEGORIES = ['underweight', 'normal', 'overweight', 'obese-class-1', 'obese-class-2', 'obese-class-3'] as const;
type Category = (typeof CATEGORIES)[number];

const LABELS: Record<Category, string> = {
  underweight: 'Underweight',
  normal: 'Normal weight',
  overweight: 'Overweight (pre-obese)',
  'obese-class-1': 'Obesity class I',
  'obese-class-2': 'Obesity class II',
  'obese-class-3': 'Obesity class III',
};

function categorize(bmi: number): Category {
  if (bmi < 18.5) return 'underweight';
  if (bmi < 25) return 'normal';
  if (bmi < 30) return 'overweight';
  if (bmi < 35) return 'obese-class-1';
  if (bmi < 40) return 'obese-class-2';
  return 'obese-class-3';
}

export const bmiCalculator = defineTool({
  family: 'calculators',
  slug: 'bmi-calculator',
  title: 'BMI calculator',
  description:
    'Body mass index for adults. Metric: BMI = weight kg / (height m)², with height given in cm. Imperial: BMI = 703 × weight lb / ' +
    '(height in)². BMI is rounded to 1 decimal and classified on the rounded value with the WHO adult categories: underweight ' +
    '< 18.5, normal 18.5–24.9, overweight 25–29.9, obesity class I 30–34.9, class II 35–39.9, class III ≥ 40. Also returns the ' +
    'weight range for a normal BMI (18.5–24.9) at the given height, in the input weight unit, rounded to 1 decimal. ' +
    'Metric accepts 1–700 kg and 30–300 cm; imperial 2–1500 lb and 12–120 in.',
  aliases: ['bmi', 'body mass index', 'healthy weight', 'weight category', 'obesity calculator'],
  credits: 1,
  input: z.object({
    units: z.enum(['metric', 'imperial']).default('metric').describe('"metric": kg and cm; "imperial": lb and inches'),
    weight: z.number().positive().max(1500).describe('Body weight in kg (metric) or pounds (imperial)').meta({ unit: 'kg (metric) or lb (imperial)' }),
    height: z.number().positive().max(300).describe('Height in cm (metric) or inches (imperial)').meta({ unit: 'cm (metric) or inches (imperial)' }),
  }),
  output: z.object({
    bmi: z.number().describe('Body mass index, rounded to 1 decimal'),
    category: z.enum(CATEGORIES).describe('WHO adult category'),
    label: z.string().describe('Human-readable category'),
    healthyWeightMin: z.number().describe('Lowest weight with a normal BMI at this height, in the input unit'),
    healthyWeightMax: z.number().describe('Highest weight with a normal BMI at this height, in the input unit'),
    weightUnit: z.enum(['kg', 'lb']),
  }),
  examples: [
    {
      title: '70 kg at 175 cm',
      input: { units: 'metric', weight: 70, height: 175 },
      output: {
        bmi: 22.9,
        category: 'normal',
        label: 'Normal weight',
        healthyWeightMin: 56.7,
        healthyWeightMax: 76.3,
        weightUnit: 'kg',
      },
    },
    {
      title: '180 lb at 70 in',
      input: { units: 'imperial', weight: 180, height: 70 },
      output: {
        bmi: 25.8,
        category: 'overweight',
        label: 'Overweight (pre-obese)',
        healthyWeightMin: 128.9,
        healthyWeightMax: 173.6,
        weightUnit: 'lb',
      },
    },
  ],
  run({ units, weight, height }) {
    const limits = UNITS[units];
    const issues: FieldIssue[] = [];
    if (weight < limits.weight.min || weight > limits.weight.max) {
      issues.push({ field: 'weight', message: `must be between ${limits.weight.min} and ${limits.weight.max} ${limits.weight.unit}` });
    }
    if (height < limits.height.min || height > limits.height.max) {
      issues.push({ field: 'height', message: `must be between ${limits.height.min} and ${limits.height.max} ${limits.height.unit}` });
    }
    if (issues.length > 0) throw invalidInput(`Weight or height out of range for ${units} units`, issues);
    // kg per (BMI unit) at this height: weight = BMI × scale.
    const scale = units === 'metric' ? (height / 100) ** 2 : height ** 2 / 703;
    const bmi = roundTo(weight / scale, 1);
    const category = categorize(bmi);
    return {
      bmi,
      category,
      label: LABELS[category],
      healthyWeightMin: roundTo(18.5 * scale, 1),
      healthyWeightMax: roundTo(24.9 * scale, 1),
      weightUnit: limits.weight.unit,
    };
  },
});
