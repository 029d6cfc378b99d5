/** A deployment window that breaks a rule: `field` is its path in the object, the message names the rule. */
export class WindowError extends Error {
  readonly field: string;
  readonly rule: string;
  constructor(field: string, rule: string) {
    super(`${field} ${rule}`);
    this.name = 'WindowError';
    this.field = field;
    this.rule = rule;
  }
}
