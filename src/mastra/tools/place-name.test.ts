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

  it("reads a country's ISO code as the country, and a US state's postal abbreviation as the state", () => {
    expect(parsePlaceName('Kyoto, JP')).toEqual({ name: 'Kyoto', countryCode: 'JP', regions: [], qualifiers: ['jp'] });
    expect(parsePlaceName('Paris, fr')).toEqual({ name: 'Paris', countryCode: 'FR', regions: [], qualifiers: ['fr'] });
    expect(parsePlaceName('Paris, TX')).toEqual({ name: 'Paris', regions: ['texas'], qualifiers: ['texas'] });
    expect(parsePlaceName('New York, NY, US')).toEqual({ name: 'New York', countryCode: 'US', regions: ['new york'], qualifiers: ['new york', 'us'] });
    // Idaho's abbreviation is Indonesia's code too: the country first, then the state (as for "Atlanta, Georgia").
    expect(parsePlaceName('Moscow, ID')).toEqual({ name: 'Moscow', countryCode: 'ID', regions: [], qualifiers: ['idaho'] });
  });
});
