import { describe, expect, it } from 'vitest';
import { parseQuery } from './destination-query.ts';

describe('parseQuery', () => {
  it('reads tradition, kind and country out of a plain request', () => {
    expect(parseQuery('Zen temple in Japan')).toEqual({
      criteria: [
        { label: 'zen', traditions: ['Zen'] },
        { label: 'temple', kinds: ['temple', 'gurdwara', 'stupa', 'shrine'], nameWords: ['temple'] },
        { label: 'japan', countryCodes: ['JP'] },
      ],
      freeWords: [],
    });
  });

  it('understands synonyms, plurals, case and accents', () => {
    expect(parseQuery('CHAN monasteries').criteria).toEqual([
      { label: 'chan', traditions: ['Zen'] },
      { label: 'monasteries', kinds: ['monastery'], nameWords: ['monastery', 'abbey'] },
    ]);
    expect(parseQuery('Daoist').criteria).toEqual([{ label: 'daoist', traditions: ['Taoist'] }]);
    expect(parseQuery('dargahs of Muslim saints').criteria.map((criterion) => criterion.label)).toEqual(['dargahs', 'muslim']);
    expect(parseQuery("Bahá'í temple in Türkiye").criteria).toEqual([
      { label: 'bahai', traditions: ["Bahá'í"] },
      { label: 'temple', kinds: ['temple', 'gurdwara', 'stupa', 'shrine'], nameWords: ['temple'] },
      { label: 'turkiye', countryCodes: ['TR'] },
    ]);
  });

  it('takes "retreat" as a retreat centre, an ashram, or a place to stay in silence', () => {
    expect(parseQuery('a retreat').criteria).toEqual([
      { label: 'retreat', kinds: ['retreat centre', 'ashram'], practices: ['silent retreat', 'monastic stay'] },
    ]);
    expect(parseQuery('retreat centers').criteria).toEqual(parseQuery('retreat').criteria.map((criterion) => ({ ...criterion, label: 'retreat centers' })));
  });

  it('prefers the longest phrase: "Ethiopian Orthodox" is a tradition, "Ethiopian" alone a country', () => {
    expect(parseQuery('Ethiopian Orthodox').criteria).toEqual([{ label: 'ethiopian orthodox', traditions: ['Ethiopian Orthodox'] }]);
    expect(parseQuery('Ethiopian churches').criteria).toContainEqual({ label: 'ethiopian', countryCodes: ['ET'] });
  });

  it.each(['pilgrimage sites', 'pilgrimage places', 'pilgrimage destinations'])('reads "%s" as pilgrimage of any kind', (phrase) => {
    expect(parseQuery(`Hindu ${phrase}`).criteria).toEqual([
      { label: 'hindu', traditions: ['Hindu'] },
      { ...parseQuery('pilgrimage').criteria[0], label: phrase },
    ]);
  });

  it('takes plain "Orthodox" as any Orthodox church, "Greek Orthodox" as the Eastern one', () => {
    expect(parseQuery('Orthodox').criteria).toEqual([
      { label: 'orthodox', traditions: ['Orthodox', 'Ethiopian Orthodox', 'Coptic', 'Armenian Apostolic'] },
    ]);
    expect(parseQuery('Orthodox Christian').criteria).toEqual(parseQuery('Orthodox').criteria);
    expect(parseQuery('Greek Orthodox').criteria).toEqual([{ label: 'greek orthodox', traditions: ['Orthodox'] }]);
  });

  it('treats several traditions, kinds or countries as alternatives', () => {
    expect(parseQuery('Buddhist or Hindu temples in Nepal or Bhutan').criteria).toEqual([
      { label: 'buddhist or hindu', traditions: ['Buddhist', 'Hindu'] },
      { label: 'temples', kinds: ['temple', 'gurdwara', 'stupa', 'shrine'], nameWords: ['temple'] },
      { label: 'nepal or bhutan', countryCodes: ['NP', 'BT'] },
    ]);
  });

  it('narrows a family named with one of its branches to the branch', () => {
    expect(parseQuery('Zen Buddhist').criteria).toEqual([{ label: 'zen', traditions: ['Zen'] }]);
    expect(parseQuery('Sufi Muslim shrines').criteria[0]).toEqual({ label: 'sufi', traditions: ['Sufi'] });
  });

  it('keeps several practices as requirements: yoga and meditation both', () => {
    expect(parseQuery('yoga and meditation').criteria).toEqual([
      { label: 'yoga', practices: ['yoga'] },
      { label: 'meditation', practices: ['meditation'] },
    ]);
  });

  it('turns regions people name into countries, or into areas of a country', () => {
    expect(parseQuery('the Holy Land').criteria).toEqual([{ label: 'holy land', countryCodes: ['IL', 'PS', 'JO'] }]);
    expect(parseQuery('Tibet').criteria).toEqual([{ label: 'tibet', areas: [expect.objectContaining({ countryCode: 'CN' })] }]);
    expect(parseQuery('Bali or Nepal').criteria).toEqual([
      { label: 'bali or nepal', areas: [expect.objectContaining({ countryCode: 'ID' })], countryCodes: ['NP'] },
    ]);
  });

  it('does not read the pronoun "us" as the United States', () => {
    expect(parseQuery('show us temples').criteria.map((criterion) => criterion.label)).toEqual(['temples']);
    expect(parseQuery('quiet temples around us')).toMatchObject({ criteria: [{ label: 'temples' }] });
    expect(parseQuery('quiet temples around us').near).toBeUndefined();
    expect(parseQuery('finding peace in us').criteria).toEqual([]);
  });

  it.each(['in the US', 'in the U.S.', 'in U.S.A.', 'across the US', 'around the U.S.', 'throughout the U.S.A', 'in the us', 'in the usa', 'in US', 'in USA'])(
    'reads "temples %s" as the United States',
    (where) => {
      expect(parseQuery(`show us temples ${where}`)).toEqual({
        criteria: [
          { label: 'temples', kinds: ['temple', 'gurdwara', 'stupa', 'shrine'], nameWords: ['temple'] },
          { label: 'united states', countryCodes: ['US'] },
        ],
        freeWords: [],
      });
    },
  );

  it.each(['U.S. temples', 'show us U.S.A. temples', 'temples, U.S.'])('reads the dotted "%s" as the United States wherever it stands', (query) => {
    expect(parseQuery(query).criteria.map((criterion) => criterion.label)).toEqual(
      query.startsWith('temples') ? ['temples', 'united states'] : ['united states', 'temples'],
    );
  });

  it('keeps unknown words, without stop words, for full-text ranking', () => {
    expect(parseQuery("Show me the Tiger's Nest monastery in Bhutan")).toMatchObject({
      criteria: [{ label: 'monastery' }, { label: 'bhutan' }],
      freeWords: ['tigers', 'nest'],
    });
    expect(parseQuery('xqzv blorft')).toEqual({ criteria: [], freeWords: ['xqzv', 'blorft'] });
  });

  it.each([
    ['temples near Kyoto', { place: 'Kyoto' }, ['temples']],
    ['Sufi shrines within 50 km of Delhi', { place: 'Delhi', radiusKm: 50 }, ['sufi', 'shrines']],
    ['churches near the Sea of Galilee within 20 miles', { place: 'Sea of Galilee', radiusKm: 32.18688 }, ['churches']],
    ['monasteries close to Kathmandu, please', { place: 'Kathmandu' }, ['monasteries']],
    ['anything near Santiago de Compostela', { place: 'Santiago de Compostela' }, []],
    ['a mosque near Istanbul in Turkey', { place: 'Istanbul' }, ['mosque', 'turkey']],
    ['mosques near Córdoba, Spain', { place: 'Córdoba, Spain' }, ['mosques']],
    ['monasteries within 30 km of Kathmandu, Nepal', { place: 'Kathmandu, Nepal', radiusKm: 30 }, ['monasteries']],
    ['Buddhist temples near Cambridge, Massachusetts', { place: 'Cambridge, Massachusetts' }, ['buddhist', 'temples']],
    ['churches near Cambridge, Massachusetts, USA, with a choir', { place: 'Cambridge, Massachusetts, USA' }, ['churches', 'choir']],
    ['shrines near Delhi, Sufi ones', { place: 'Delhi' }, ['shrines', 'sufi']],
    ['shrines near Delhi, Sufi', { place: 'Delhi' }, ['shrines', 'sufi']],
    ['temples 50 km from Kyoto', { place: 'Kyoto', radiusKm: 50 }, ['temples']],
    ['temples less than 50 km from Kyoto', { place: 'Kyoto', radiusKm: 50 }, ['temples']],
    ['temples under 50 km from Kyoto', { place: 'Kyoto', radiusKm: 50 }, ['temples']],
    ['temples in a 50 km radius of Kyoto', { place: 'Kyoto', radiusKm: 50 }, ['temples']],
    ['churches within 30 miles of Assisi', { place: 'Assisi', radiusKm: 48.28032 }, ['churches']],
  ])('reads "%s" as a search near a place', (query, near, labels) => {
    const parsed = parseQuery(query);
    expect(parsed.near).toEqual(near);
    expect(parsed.criteria.map((criterion) => criterion.label)).toEqual(labels);
  });

  it('measures from no place for "around the world" or "near me"', () => {
    expect(parseQuery('Sufi shrines around the world').near).toBeUndefined();
    expect(parseQuery('temples near me').near).toBeUndefined();
  });

  it('reads "around Japan" as the country, not as a place to measure from', () => {
    expect(parseQuery('shrines around Japan')).toEqual({
      criteria: [
        { label: 'shrines', kinds: ['shrine', 'pilgrimage site', 'gurdwara', 'temple', 'stupa', 'mausoleum'], nameWords: ['shrine', 'dargah', 'sanctuary'] },
        { label: 'japan', countryCodes: ['JP'] },
      ],
      freeWords: [],
    });
  });
});
