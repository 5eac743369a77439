// The part of @mdn/mdn-http-observatory (plain JavaScript, no types) the bench calls.
declare module '@mdn/mdn-http-observatory' {
  export interface ObservatoryTest {
    result: string;
    scoreModifier: number;
    pass: boolean | null;
  }
  export function scan(hostname: string): Promise<{ scan: { grade: string; score: number }; tests: Record<string, ObservatoryTest> }>;
}
