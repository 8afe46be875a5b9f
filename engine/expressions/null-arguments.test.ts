import { describe, expect, it } from 'vitest';
import { compileExpression } from './compile';

// ERPs and the platform write null for a value they do not have; the helpers must treat it as "nothing".
describe('helpers given null', () => {
  it('$isoDateTime(null) gives nothing, also with a format', async () => {
    expect(await compileExpression("{ 'd': $isoDateTime(v, 'DD.MM.YYYY'), 'e': $isoDateTime(v) }").evaluate({ v: null })).toEqual({});
  });

  it('$parseJson(null) gives nothing', async () => {
    expect(await compileExpression("{ 'x': $parseJson(v).a }").evaluate({ v: null })).toEqual({});
  });

  it('still refuses values of the wrong type', async () => {
    await expect(compileExpression('$isoDateTime(v)').evaluate({ v: true })).rejects.toMatchObject({ code: 'T0410' });
    await expect(compileExpression('$parseJson(v)').evaluate({ v: 5 })).rejects.toMatchObject({ code: 'T0410' });
  });
});
