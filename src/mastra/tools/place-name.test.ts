import { describe, expect, it } from 'vitest';
import { parsePlaceName } from './place-name.ts';

describe('parsePlaceName', () => {
  it('takes the name alone when nothing follows a comma', () => {
    expect(parsePlaceName('  Varanasi ')).toEqual({ name: 'Varanasi', regions: [], qualifiers: [] });
    expect(parsePlaceName('Varanasi,')).toEqual({ name: 'Varanasi', regions: [], qualifiers: [] });
  });

  it('reads a country after a comma as its code, and anything else as a region', () => {
    expect(parsePlaceName('Kyoto, Japan')).toEqual({ name: 'Kyoto', countryCode: 'JP', regions: [], qualifiers: ['japan'] });
    expect(parsePlaceName('Cambridge, Massachusetts, USA')).toEqual({
      name: 'Cambridge',
      countryCode: 'US',
      regions: ['massachusetts'],
      qualifiers: ['massachusetts', 'usa'],
    });
    expect(parsePlaceName('Bodh Gaya, Bihār')).toEqual({ name: 'Bodh Gaya', regions: ['bihar'], qualifiers: ['bihar'] });
  });
});
