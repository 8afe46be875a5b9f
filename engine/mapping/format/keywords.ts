/**
 * Extra words of the declaration, kept in the JSON Schema (AJV is told about them). Apart from the
 * declaration (declare.ts) so the structure check's AJV can name them without loading TypeBox.
 */
export const FORMAT_KEYWORDS = ['secret', 'variantKey', 'expression', 'template'] as const;
