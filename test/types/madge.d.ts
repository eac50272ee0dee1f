// The part of madge's API (lib/api.js) that test/unit/architecture.test.ts uses.
declare module 'madge' {
  interface MadgeConfig {
    fileExtensions?: string[];
    tsConfig?: string;
  }
  interface MadgeResult {
    /** Module → the modules it imports (paths relative to the base directory). */
    obj(): Record<string, string[]>;
    /** Every import cycle, each as a list of modules. */
    circular(): string[][];
  }
  export default function madge(path: string, config?: MadgeConfig): Promise<MadgeResult>;
}
