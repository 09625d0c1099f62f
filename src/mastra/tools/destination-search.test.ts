import { describe, expect, it } from 'vitest';
import { countryCodeOf } from './countries.ts';
import { DESTINATIONS } from './destination-catalogue.ts';
import { parseQuery } from './destination-query.ts';
import type { Destination } from './destination-schema.ts';
import { createDestinationSearch, type CatalogueQuery } from './destination-search.ts';
import type { Criterion } from './destination-vocabulary.ts';
import { haversineKm } from './great-circle.ts';

const search = createDestinationSearch(DESTINATIONS);

/** Searches as the tool does with a request in plain words, plus structured criteria. */
function find(query: string, options: Partial<CatalogueQuery> = {}) {
  const parsed = parseQuery(query);
  return search({ criteria: [...parsed.criteria, ...(options.criteria ?? [])], freeWords: parsed.freeWords, limit: 500, ...options });
}

const ids = (destinations: readonly Destination[]) => destinations.map((destination) => destination.id);
const byId = (id: string) => DESTINATIONS.find((destination) => destination.id === id)!;

describe('destination search: filters', () => {
  it('filters by tradition, a family including its branches', () => {
    const buddhist = search({ criteria: [{ label: 'Buddhist', traditions: ['Buddhist'] }], freeWords: [], limit: 500 });
    expect(buddhist.total).toBe(DESTINATIONS.filter((destination) => destination.traditions.includes('Buddhist')).length);
    expect(ids(buddhist.destinations)).toContain('eihei-ji'); // Zen
    expect(ids(buddhist.destinations)).toContain('jokhang'); // Tibetan
    expect(buddhist.destinations.every((destination) => destination.traditions.includes('Buddhist'))).toBe(true);
  });

  it('filters by kind', () => {
    const { destinations } = search({ criteria: [{ label: 'synagogue', kinds: ['synagogue'] }], freeWords: [], limit: 500 });
    expect(destinations.length).toBeGreaterThanOrEqual(5);
    expect(destinations.every((destination) => destination.kind === 'synagogue')).toBe(true);
  });

  it('filters by practice', () => {
    const { destinations } = search({ criteria: [{ label: 'yoga', practices: ['yoga'] }], freeWords: [], limit: 500 });
    expect(ids(destinations)).toEqual(expect.arrayContaining(['rishikesh', 'parmarth-niketan', 'isha-yoga-center']));
    expect(destinations.every((destination) => destination.practices.includes('yoga'))).toBe(true);
  });

  it('filters by country and by continent', () => {
    const bhutan = search({ criteria: [{ label: 'Bhutan', countryCodes: ['BT'] }], freeWords: [], limit: 500 });
    expect(ids(bhutan.destinations).sort()).toEqual(['chimi-lhakhang', 'kyichu-lhakhang', 'paro-taktsang', 'punakha-dzong']);
    const oceania = search({ criteria: [{ label: 'Oceania', continents: ['Oceania'] }], freeWords: [], limit: 500 });
    expect(oceania.total).toBe(DESTINATIONS.filter((destination) => destination.region === 'Oceania').length);
    expect(oceania.destinations.every((destination) => destination.region === 'Oceania')).toBe(true);
  });

  it('combines filters: every one must hold', () => {
    const criteria: Criterion[] = [
      { label: 'Christian', traditions: ['Christian'] },
      { label: 'monastery', kinds: ['monastery'] },
      { label: 'Africa', continents: ['Africa'] },
    ];
    const { destinations } = search({ criteria, freeWords: [], limit: 500 });
    expect(destinations.length).toBeGreaterThanOrEqual(3);
    for (const destination of destinations) {
      expect(destination).toMatchObject({ kind: 'monastery', region: 'Africa' });
      expect(destination.traditions).toContain('Christian');
    }
  });

  it('finds what a plain request asks for: a Zen temple in Japan', () => {
    const { destinations } = find('Zen temple in Japan');
    expect(destinations.length).toBeGreaterThanOrEqual(5);
    for (const destination of destinations) {
      expect(destination).toMatchObject({ country: 'Japan', kind: 'temple' });
      expect(destination.traditions).toContain('Zen');
    }
  });

  it('counts every match but returns only up to the limit', () => {
    const answer = find('Buddhist', { limit: 3 });
    expect(answer.destinations).toHaveLength(3);
    expect(answer.total).toBe(DESTINATIONS.filter((destination) => destination.traditions.includes('Buddhist')).length);
  });
});

describe('destination search: ranking', () => {
  // Requests as people type them (and as the model passes them on), and the place that should come first.
  it.each([
    ['Golden Temple in Amritsar', 'golden-temple'],
    ['where did the Buddha attain enlightenment', 'mahabodhi-temple'],
    ["Tiger's Nest monastery in Bhutan", 'paro-taktsang'],
    ['whirling dervishes in Turkey', 'mevlana-museum'],
    ['Shinto shrine with thousands of torii gates', 'fushimi-inari-taisha'],
    ['Zen rock garden in Kyoto', 'ryoan-ji'],
    ['silent meditation retreat in Thailand', 'suan-mokkh'],
    ['Sufi shrine with qawwali in Delhi', 'nizamuddin-dargah'],
    ['Jewish holy sites in Jerusalem', 'western-wall'],
    ["Bahá'í temple in India", 'lotus-temple'],
    ['birthplace of Guru Nanak', 'gurdwara-janam-asthan'],
    ['Zoroastrian fire temple in Iran', 'atash-behram-of-yazd'],
    ['Meteora', 'meteora'],
    ['monastery in Greece on rock pillars', 'meteora'],
    ['Camino de Santiago', 'camino-de-santiago'],
    ['Marian shrine in France where Bernadette saw visions', 'sanctuary-of-our-lady-of-lourdes'],
    ['rock-hewn churches in Ethiopia', 'rock-hewn-churches-lalibela'],
    ['Shia shrine in Karbala', 'imam-husayn-shrine'],
    ['Anangu sacred rock in the desert', 'uluru'],
    ['where Māori spirits leap into the underworld', 'cape-reinga'],
    ['Taoist mountain where tai chi was born', 'wudang-mountains'],
    ['Church of the Holy Sepulchre', 'church-of-the-holy-sepulchre'],
    // Requests that name only a tradition, kind or region: the best-known place (its `prominence`) first.
    ['Sikh', 'golden-temple'],
    ["Bahá'í", 'shrine-of-the-bab'],
    ['Jewish holy site', 'western-wall'],
    ['Indigenous sacred site in Australia', 'uluru'],
    ['Aboriginal sacred site', 'uluru'],
    ['Greek Orthodox', 'meteora'],
    ['Orthodox monastery in Greece', 'meteora'],
    ['Ethiopian Orthodox', 'rock-hewn-churches-lalibela'],
    ['sacred sites in Africa', 'rock-hewn-churches-lalibela'],
    ['Ganges', 'varanasi'],
    ['Buddhist pilgrimage in India', 'mahabodhi-temple'],
  ])('"%s" → %s first', (query, expectedId) => {
    expect(find(query).destinations[0]?.id).toBe(expectedId);
  });

  it.each([
    ['monastery in Greece', 'mount-athos'],
    ['Orthodox monastery', 'mount-athos'],
    ['Marian shrine', 'sanctuary-of-our-lady-of-lourdes'],
  ])('"%s" has %s among the first five', (query, expectedId) => {
    expect(ids(find(query).destinations).slice(0, 5)).toContain(expectedId);
  });

  it('ranks a name match above a passing mention in a description', () => {
    // Velankanni's description calls it "the Lourdes of the East"; Lourdes itself comes first.
    expect(ids(find('Lourdes').destinations)).toEqual(['sanctuary-of-our-lady-of-lourdes', 'basilica-of-our-lady-of-good-health']);
  });
});

describe('destination search: words', () => {
  it('ignores case and diacritics in both directions', () => {
    expect(ids(find('TAIZE').destinations)).toEqual(['taize-community']);
    expect(ids(find('Taizé').destinations)).toEqual(['taize-community']);
    expect(ids(find('Haci Bektas').destinations)).toEqual(['haci-bektas-veli-complex']);
    expect(ids(find('Tane Mahuta').destinations)).toEqual(['tane-mahuta']);
    expect(ids(find('ryoan ji').destinations)[0]).toBe('ryoan-ji');
  });

  it.each([
    ['Bodhgaya', 'mahabodhi-temple'],
    ['Bodh Gaya', 'mahabodhi-temple'],
    ['Makkah', 'great-mosque-of-mecca'],
    ['Ayers Rock', 'uluru'],
    ['sacred rock in Australia', 'uluru'],
    ['Wailing Wall', 'western-wall'],
    ['Harmandir Sahib', 'golden-temple'],
  ])('finds a place by another name people use: "%s" → %s first', (query, expectedId) => {
    expect(find(query).destinations[0]?.id).toBe(expectedId);
  });

  it('forgives a typo in a longer word', () => {
    expect(ids(find('Shwedagon Pagodda').destinations)[0]).toBe('shwedagon-pagoda');
  });

  it('understands synonyms: Chan is Zen, Daoist is Taoist, a dargah is a shrine, Moslem is Islamic', () => {
    expect(find('Chan monastery in China').destinations.map(({ id }) => id)).toEqual(['shaolin-monastery']);
    expect(find('Daoist mountains').destinations.every(({ traditions, kind }) => traditions.includes('Taoist') && kind === 'sacred mountain')).toBe(true);
    expect(find('dargah in Pakistan').destinations.every(({ kind, country }) => kind === 'shrine' && country === 'Pakistan')).toBe(true);
    expect(find('Moslem').total).toBe(DESTINATIONS.filter(({ traditions }) => traditions.includes('Islamic')).length);
  });

  it('treats retreat and retreat centre alike', () => {
    expect(ids(find('retreat centre in the United States').destinations)).toEqual(ids(find('retreat in the United States').destinations));
    expect(find('retreat in the United States').destinations.map(({ id }) => id)).toContain('spirit-rock-meditation-center');
  });

  it('finds pilgrimage sites of every kind, not only those the catalogue files as "pilgrimage site"', () => {
    expect(ids(find('Sikh pilgrimage sites').destinations)).toContain('hemkund-sahib'); // a gurdwara
    expect(ids(find('pilgrimage sites in Saudi Arabia').destinations).sort()).toEqual(['al-masjid-an-nabawi', 'great-mosque-of-mecca']);
    expect(find('Hindu pilgrimage sites').total).toBe(find('Hindu pilgrimage').total);
  });

  // The great pilgrimage destinations are temples, gurdwaras and stupas as often as "pilgrimage sites".
  it.each([
    ['Buddhist pilgrimage in India', ['mahabodhi-temple', 'mahaparinirvana-temple', 'sanchi', 'sarnath']],
    ['Buddhist pilgrimage', ['mahabodhi-temple', 'lumbini', 'shwedagon-pagoda', 'temple-of-the-tooth']],
    ['Sikh pilgrimage', ['golden-temple', 'hemkund-sahib', 'gurdwara-janam-asthan']],
    ['Hindu pilgrimage sites in India', ['jagannath-temple', 'varanasi', 'kedarnath-temple']],
    ["Bahá'í pilgrimage", ['shrine-of-the-bab']],
    ['Shia pilgrimage in Iraq', ['imam-husayn-shrine', 'al-kadhimiya-mosque']],
  ])('finds the pilgrimage destinations of "%s"', (query, expected) => {
    expect(ids(find(query).destinations)).toEqual(expect.arrayContaining(expected));
  });

  // A request for a shrine or a temple is for any of the kinds people call so, the exact kind first.
  it.each([
    ['Sikh shrine', 'golden-temple'],
    ['holiest Sikh shrine', 'golden-temple'],
    ['Hindu shrine', 'kashi-vishwanath-temple'],
    ['Hindu shrine in India', 'kashi-vishwanath-temple'],
    ['Shinto temple', 'fushimi-inari-taisha'],
    ['Shinto temple in Japan', 'ise-grand-shrine'],
    ['Buddhist temples in Nepal', 'boudhanath'],
    ['Buddhist temples in Nepal', 'swayambhunath'],
    ['Sufi shrine in Pakistan', 'data-darbar'],
  ])('"%s" finds %s', (query, expectedId) => {
    expect(ids(find(query).destinations)).toContain(expectedId);
  });

  it('ranks the exact kind above those people also call so', () => {
    expect(find('Buddhist temples in Nepal').destinations[0]?.kind).toBe('temple');
    expect(find('Shinto temple in Japan').destinations.map(({ kind }) => kind).slice(0, 3)).toEqual(['shrine', 'shrine', 'shrine']);
  });

  it('files a pilgrimage route where walkers walk it: the Via Francigena in Italy', () => {
    expect(ids(find('pilgrimage route in Italy').destinations)).toContain('via-francigena');
  });

  it('finds the Ethiopian, Coptic and Armenian churches as Orthodox', () => {
    const ethiopian = find('Orthodox churches in Ethiopia');
    expect(ethiopian.total).toBeGreaterThanOrEqual(4);
    expect(ethiopian.destinations.every(({ traditions }) => traditions.includes('Ethiopian Orthodox'))).toBe(true);
    expect(ids(find('Orthodox monasteries in Egypt').destinations)).toContain('monastery-of-saint-pishoy'); // Coptic
    expect(ids(find('Orthodox churches in Armenia').destinations)).toContain('etchmiadzin-cathedral');
  });

  it('finds places in the US, written as people write it', () => {
    const usa = find('meditation retreat in the U.S.');
    expect(usa.total).toBeGreaterThan(0);
    expect(usa.destinations.every(({ country }) => country === 'United States')).toBe(true);
    expect(usa).toEqual(find('meditation retreat in the United States'));
  });

  it('keeps a region to its own places: Tibet is not Beijing, nor Bali Java', () => {
    expect(ids(find('Tibet').destinations).sort()).toEqual(['jokhang', 'lake-manasarovar', 'mount-kailash', 'tashi-lhunpo-monastery']);
    expect(ids(find('temples in Tibet').destinations)).toEqual(['jokhang']);
    expect(ids(find('monasteries in Tibet or Nepal').destinations)).toEqual(expect.arrayContaining(['tashi-lhunpo-monastery', 'kopan-monastery']));
    expect(ids(find('temples in Bali').destinations).sort()).toEqual(['besakih', 'tanah-lot', 'tirta-empul-temple']);
    expect(find('Buddhist temples in Bali').total).toBe(0);
  });

  it('keeps the Himalaya to the range and its valleys, not the plains of the countries it crosses', () => {
    const temples = ids(find('temples in the Himalayas').destinations);
    expect(temples).toEqual(expect.arrayContaining(['kedarnath-temple', 'pashupatinath-temple', 'jokhang', 'chimi-lhakhang']));
    for (const plains of ['mahabodhi-temple', 'golden-temple', 'jagannath-temple', 'lotus-temple', 'janaki-mandir']) expect(temples).not.toContain(plains);
    const monasteries = ids(find('Himalayan monasteries').destinations);
    expect(monasteries).toEqual(expect.arrayContaining(['tengboche-monastery', 'hemis-monastery', 'tawang-monastery', 'paro-taktsang']));
    expect(monasteries).not.toContain('shaolin-monastery');
  });

  it('narrows by leftover words when some matching place has them, and says which it ignored', () => {
    const inKyoto = find('Zen temples in Kyoto');
    expect(inKyoto.destinations.every(({ nearestTown }) => nearestTown === 'Kyoto')).toBe(true);
    expect(inKyoto.ignoredWords).toEqual([]);
    const hopeful = find('Zen temples in Japan with a swimming pool');
    expect(hopeful.total).toBe(find('Zen temples in Japan').total);
    expect(hopeful.ignoredWords).toEqual(['swimming', 'pool']);
  });

  it('finds nothing for nonsense, nor for a kind a country does not have', () => {
    expect(find('xqzv blorft')).toEqual({ destinations: [], total: 0, ignoredWords: [] });
    expect(find('asdfghjkl').total).toBe(0);
    expect(find('mosque in Bhutan').total).toBe(0);
  });
});

describe('destination search: near a place', () => {
  const KYOTO = { latitude: 35.02107, longitude: 135.75385 }; // GeoNames

  it('keeps what lies within the radius, nearest first, each with its distance', () => {
    const { destinations } = search({ criteria: [], freeWords: [], near: { ...KYOTO, radiusKm: 50 }, limit: 500 });
    expect(destinations.length).toBeGreaterThanOrEqual(8);
    const distances = destinations.map((destination) => destination.distanceKm!);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    expect(Math.max(...distances)).toBeLessThanOrEqual(50);
    expect(ids(destinations)).toEqual(expect.arrayContaining(['ryoan-ji', 'fushimi-inari-taisha', 'todai-ji', 'enryaku-ji']));
    expect(ids(destinations)).not.toContain('engaku-ji'); // Kamakura
  });

  it('measures great-circle distances from the catalogue coordinates', () => {
    const { destinations } = search({ criteria: [], freeWords: [], near: { ...KYOTO, radiusKm: 50 }, limit: 500 });
    const todaiji = destinations.find(({ id }) => id === 'todai-ji')!;
    // Kyoto to Tōdai-ji (34.6890, 135.8398): 37.6 km on the sphere.
    expect(todaiji.distanceKm).toBeCloseTo(37.6, 0);
    expect(todaiji.distanceKm).toBeCloseTo(haversineKm(KYOTO, byId('todai-ji')), 1);
  });

  it('combines the place with a request: Shinto shrines near Kyoto', () => {
    const { destinations } = find('Shinto shrines', { near: { ...KYOTO, radiusKm: 100 } });
    expect(ids(destinations)).toEqual(['fushimi-inari-taisha', 'kasuga-taisha']);
  });

  it('finds nothing when nothing lies within the radius', () => {
    const midPacific = { latitude: 0, longitude: -160, radiusKm: 200 };
    expect(search({ criteria: [], freeWords: [], near: midPacific, limit: 5 }).total).toBe(0);
  });
});

describe('haversineKm', () => {
  it('matches known great-circle distances', () => {
    const paris = { latitude: 48.8566, longitude: 2.3522 };
    const london = { latitude: 51.5074, longitude: -0.1278 };
    expect(haversineKm(paris, london)).toBeCloseTo(343.6, 0);
    expect(haversineKm(paris, paris)).toBe(0);
    // A quarter of the way round the equator.
    expect(haversineKm({ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 90 })).toBeCloseTo(10_007.5, 0);
  });
});

it('every result is a catalogue destination, unchanged but for distanceKm', () => {
  const { destinations } = find('Buddhist', { near: { latitude: 27.7, longitude: 85.3, radiusKm: 300 } });
  for (const { distanceKm, ...destination } of destinations) {
    expect(destination).toEqual(byId(destination.id));
    expect(typeof distanceKm).toBe('number');
    expect(countryCodeOf(destination.country)).toBeDefined();
  }
});
