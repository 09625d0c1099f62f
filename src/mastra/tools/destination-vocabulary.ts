/**
 * @module destination-vocabulary
 *
 * The words people use for what the catalogue records: "Zen" is a Buddhist branch, "dargah" a
 * shrine, "kora" circumambulation, "Middle East" a list of countries. Each phrase stands for one or
 * more criteria; a destination meets a criterion when it matches any of its alternatives.
 */
import type { Continent, Kind, Practice, Tradition } from './destination-schema.ts';

export interface Criterion {
  /** The words that asked for it, e.g. "zen" or "Japan", so the caller can say how it was understood. */
  label: string;
  traditions?: readonly Tradition[];
  kinds?: readonly Kind[];
  practices?: readonly Practice[];
  /** ISO 3166-1 alpha-2 codes */
  countryCodes?: readonly string[];
  continents?: readonly Continent[];
  /** Regions people name as if they were countries ("Tibet", "Bali"). */
  areas?: readonly Area[];
  /** Words (singular) in a destination's name that meet it too: the "Rock-Hewn Churches, Lalibela" are asked for as churches. */
  nameWords?: readonly string[];
  /** The destinations a request names by their own name ("Montserrat Abbey"). */
  ids?: readonly string[];
}

export type CriterionSpec = Omit<Criterion, 'label'>;

/** Whether a criterion says where: a country, continent or area. */
export function namesPlaces({ countryCodes, continents, areas }: CriterionSpec): boolean {
  return Boolean(countryCodes || continents || areas);
}

/**
 * A region inside one country, as a box of latitudes and longitudes around it: close enough for a catalogue
 * of well-spaced places, while the country keeps out the neighbours the box overlaps (Nepal in Tibet's).
 */
export interface Area {
  /** ISO 3166-1 alpha-2 */
  countryCode: string;
  south: number;
  north: number;
  west: number;
  east: number;
}

/** The Tibet Autonomous Region. */
const TIBET: Area = { countryCode: 'CN', south: 26.8, north: 36.5, west: 78.3, east: 99.2 };

/**
 * The range and its valleys, country by country, without the plains below them: Lumbini and Janakpur in Nepal's
 * Terai, Amritsar, Delhi, Haridwar and Guwahati in India's, Lahore and Islamabad in Pakistan's.
 */
const HIMALAYA: readonly Area[] = [
  { countryCode: 'NP', south: 27.6, north: 30.5, west: 80, east: 88.3 },
  { countryCode: 'BT', south: 26.7, north: 28.4, west: 88.7, east: 92.2 },
  TIBET,
  // Jammu and Kashmir, Ladakh and Dharamshala; Himachal's and Uttarakhand's hills; Sikkim and Darjeeling; Arunachal.
  { countryCode: 'IN', south: 32, north: 37, west: 73.5, east: 80.5 },
  { countryCode: 'IN', south: 30, north: 32, west: 76.6, east: 81 },
  { countryCode: 'IN', south: 26.9, north: 28.2, west: 87.9, east: 89 },
  { countryCode: 'IN', south: 26.9, north: 29.5, west: 91.5, east: 97.5 },
  // Gilgit-Baltistan and the north of Khyber Pakhtunkhwa.
  { countryCode: 'PK', south: 34.5, north: 37.1, west: 71, east: 77.9 },
];

const tradition = (...traditions: Tradition[]): CriterionSpec => ({ traditions });
const kind = (...kinds: Kind[]): CriterionSpec => ({ kinds });
const practice = (...practices: Practice[]): CriterionSpec => ({ practices });
const countries = (...countryCodes: string[]): CriterionSpec => ({ countryCodes });
const continent = (...continents: Continent[]): CriterionSpec => ({ continents });
const area = (...areas: Area[]): CriterionSpec => ({ areas });

/** Phrases (lower case, no accents or apostrophes) to the criteria they stand for. */
export const PHRASES: ReadonlyArray<readonly [phrases: readonly string[], criteria: readonly CriterionSpec[]]> = [
  // Traditions
  [['buddhist', 'buddhism', 'buddha', 'dharma'], [tradition('Buddhist')]],
  [['theravada', 'vipassana', 'thai forest tradition'], [tradition('Theravada')]],
  [['mahayana', 'pure land', 'shingon', 'tendai'], [tradition('Mahayana')]],
  [['zen', 'chan', 'seon', 'zazen', 'rinzai', 'soto'], [tradition('Zen')]],
  [['tibetan', 'tibetan buddhist', 'tibetan buddhism', 'vajrayana', 'lamaist'], [tradition('Tibetan Buddhist')]],
  [['hindu', 'hinduism', 'vedic', 'shaivite', 'vaishnava'], [tradition('Hindu')]],
  [['christian', 'christianity', 'christ', 'jesus', 'biblical'], [tradition('Christian')]],
  [['catholic', 'roman catholic', 'catholicism', 'marian', 'benedictine', 'franciscan', 'trappist'], [tradition('Catholic')]],
  // The catalogue files the Oriental Orthodox churches apart from the Eastern one; plain "Orthodox" is any of them.
  [['orthodox'], [tradition('Orthodox', 'Ethiopian Orthodox', 'Coptic', 'Armenian Apostolic')]],
  [['eastern orthodox', 'greek orthodox', 'russian orthodox'], [tradition('Orthodox')]],
  [['oriental orthodox'], [tradition('Ethiopian Orthodox', 'Coptic', 'Armenian Apostolic')]],
  [['protestant', 'lutheran', 'evangelical', 'methodist', 'baptist', 'presbyterian', 'reformed', 'quaker', 'moravian'], [tradition('Protestant')]],
  [['anglican', 'episcopal', 'church of england'], [tradition('Anglican')]],
  [['coptic', 'copt', 'copts'], [tradition('Coptic')]],
  [['ethiopian orthodox', 'tewahedo'], [tradition('Ethiopian Orthodox')]],
  [['armenian', 'armenian apostolic'], [tradition('Armenian Apostolic')]],
  [['islamic', 'islam', 'muslim', 'moslem'], [tradition('Islamic')]],
  [['sunni'], [tradition('Sunni')]],
  [['shia', 'shiite', 'shii'], [tradition('Shia')]],
  [['sufi', 'sufism', 'dervish', 'dervishes', 'whirling dervishes'], [tradition('Sufi')]],
  [['jewish', 'judaism', 'jew', 'jews', 'hebrew', 'kabbalah'], [tradition('Jewish')]],
  [['sikh', 'sikhism', 'khalsa'], [tradition('Sikh')]],
  [['jain', 'jainism'], [tradition('Jain')]],
  [['taoist', 'taoism', 'daoist', 'daoism'], [tradition('Taoist')]],
  [['shinto', 'shintoism', 'kami'], [tradition('Shinto')]],
  [['confucian', 'confucianism', 'confucius'], [tradition('Confucian')]],
  [['bahai', 'baha i'], [tradition("Bahá'í")]],
  [['zoroastrian', 'zoroastrianism', 'parsi', 'parsee'], [tradition('Zoroastrian')]],
  [['fire temple'], [tradition('Zoroastrian'), kind('temple')]],
  [['indigenous', 'aboriginal', 'first nations', 'native', 'tribal', 'shamanic', 'shaman'], [tradition('Indigenous')]],
  [['native american', 'american indian'], [tradition('Indigenous'), continent('North America')]],
  [['maori'], [tradition('Indigenous'), countries('NZ')]],
  [['ancient', 'pagan', 'prehistoric', 'neolithic', 'megalithic', 'druid', 'archaeological'], [tradition('Ancient')]],
  [['nature', 'wilderness'], [tradition('Nature')]],
  [['secular', 'non religious', 'nonreligious', 'mindfulness', 'wellness'], [tradition('Secular')]],
  [['interfaith', 'ecumenical', 'multifaith', 'all faiths'], [tradition('Interfaith')]],

  // Kinds
  // "Pilgrimage sites" is how people ask for pilgrimages of any kind, not for the catalogue's kind of that name:
  // the kinds, and any place the catalogue marks as a pilgrimage destination or walk.
  [['pilgrimage', 'pilgrimages', 'pilgrim', 'pilgrimage site', 'pilgrimage place', 'pilgrimage destination'], [{ kinds: ['pilgrimage site', 'pilgrimage route', 'holy city'], practices: ['pilgrimage', 'pilgrimage walk'] }]],
  [['holy city', 'sacred city'], [kind('holy city')]],
  [['pilgrimage route', 'pilgrim route', 'pilgrim trail', 'pilgrimage trail', 'camino'], [kind('pilgrimage route')]],
  // People call a gurdwara, a stupa or a shrine a temple, and a temple, gurdwara, stupa or tomb a shrine: the plain
  // words take in those kinds, and the kind itself, matched by the ranking, puts the exact ones first.
  [['temple'], [{ kinds: ['temple', 'gurdwara', 'stupa', 'shrine'], nameWords: ['temple'] }]],
  [['wat', 'mandir', 'kovil', 'pura'], [{ kinds: ['temple'], nameWords: ['temple'] }]],
  [['pagoda'], [{ kinds: ['temple', 'stupa'], nameWords: ['pagoda'] }]],
  // People call Lourdes or Fátima a shrine, though the catalogue files them as pilgrimage sites.
  [['shrine'], [{ kinds: ['shrine', 'pilgrimage site', 'gurdwara', 'temple', 'stupa', 'mausoleum'], nameWords: ['shrine', 'dargah', 'sanctuary'] }]],
  [['dargah', 'jinja'], [{ kinds: ['shrine', 'pilgrimage site'], nameWords: ['shrine', 'dargah', 'sanctuary'] }]],
  [['monastery', 'abbey', 'convent', 'priory', 'friary', 'lamasery', 'gompa', 'vihara', 'nunnery', 'hermitage', 'dzong'], [{ kinds: ['monastery'], nameWords: ['monastery', 'abbey'] }]],
  [['church', 'chapel', 'basilica'], [{ kinds: ['church', 'cathedral'], nameWords: ['church', 'basilica', 'chapel'] }]],
  [['cathedral'], [{ kinds: ['cathedral'], nameWords: ['cathedral'] }]],
  [['mosque', 'masjid'], [{ kinds: ['mosque'], nameWords: ['mosque', 'masjid'] }]],
  [['synagogue', 'shul'], [{ kinds: ['synagogue'], nameWords: ['synagogue'] }]],
  [['gurdwara', 'gurudwara'], [{ kinds: ['gurdwara'], nameWords: ['gurdwara', 'gurudwara'] }]],
  [['ashram'], [kind('ashram')]],
  [['stupa', 'chorten', 'chedi', 'dagoba'], [{ kinds: ['stupa'], nameWords: ['stupa'] }]],
  [['mausoleum', 'tomb'], [{ kinds: ['mausoleum'], nameWords: ['mausoleum', 'tomb'] }]],
  [['retreat', 'retreat centre', 'retreat center', 'retreat house'], [{ kinds: ['retreat centre', 'ashram'], practices: ['silent retreat', 'monastic stay'] }]],
  [['mountain', 'mount', 'peak', 'hill', 'sacred mountain', 'holy mountain'], [{ kinds: ['sacred mountain'], nameWords: ['mount', 'mountain'] }]],
  [['lake', 'sacred lake'], [{ kinds: ['sacred lake'], nameWords: ['lake'] }]],
  [['river', 'sacred river'], [{ kinds: ['sacred river'], nameWords: ['river'] }]],
  [['cave', 'grotto', 'cave temple'], [{ kinds: ['sacred cave'], nameWords: ['cave', 'caves', 'grotto'] }]],
  [['forest', 'grove', 'woods', 'sacred forest'], [{ kinds: ['sacred forest'], nameWords: ['forest'] }]],
  [['island', 'sacred island'], [{ kinds: ['sacred island'], nameWords: ['island'] }]],
  [['ruins', 'ancient site', 'archaeological site'], [kind('ancient site')]],
  [['nature sanctuary', 'national park', 'nature reserve'], [kind('nature sanctuary')]],

  // Practices
  [['meditation', 'meditate', 'meditating'], [practice('meditation')]],
  [['yoga', 'yogi'], [practice('yoga')]],
  [['silent retreat', 'silence', 'silent'], [practice('silent retreat')]],
  [['pilgrimage walk', 'walking pilgrimage'], [practice('pilgrimage walk')]],
  [['hiking', 'hike', 'trek', 'trekking'], [practice('hiking')]],
  [['chanting', 'chant', 'kirtan'], [practice('chanting')]],
  [['prayer', 'pray', 'praying'], [practice('prayer')]],
  [['liturgy', 'mass', 'worship service', 'church service'], [practice('liturgy')]],
  [['sacred music', 'music', 'qawwali', 'choir', 'gregorian'], [practice('sacred music')]],
  [['sacred dance', 'dance', 'dancing', 'whirling'], [practice('sacred dance')]],
  [['ritual bathing', 'bathing', 'bathe', 'baptism', 'baptised', 'baptized', 'holy dip'], [practice('ritual bathing')]],
  [['circumambulation', 'kora', 'parikrama', 'pradakshina', 'girivalam'], [practice('circumambulation')]],
  [['offerings', 'offering'], [practice('offerings')]],
  [['fasting', 'fast day'], [practice('fasting')]],
  [['ceremony', 'ritual', 'aarti'], [practice('ceremony')]],
  [['festival'], [practice('festival')]],
  [['study', 'teachings', 'courses'], [practice('study')]],
  [['seva', 'volunteer', 'volunteering'], [practice('seva')]],
  [['monastic stay', 'temple stay', 'templestay', 'shukubo', 'overnight stay', 'stay overnight'], [practice('monastic stay')]],
  [['forest bathing', 'shinrin yoku'], [practice('forest bathing')]],
  [['contemplation', 'contemplative', 'reflection'], [practice('contemplation')]],
  [['healing'], [practice('healing')]],

  // Continents and the regions people name instead
  [['africa', 'african'], [continent('Africa')]],
  [['asia', 'asian'], [continent('Asia')]],
  [['europe', 'european'], [continent('Europe')]],
  [['north america', 'central america', 'caribbean', 'north american'], [continent('North America')]],
  [['south america', 'south american'], [continent('South America')]],
  [['latin america'], [continent('North America', 'South America')]],
  [['oceania', 'pacific', 'south pacific', 'australasia', 'polynesia'], [continent('Oceania')]],
  [['middle east', 'near east'], [countries('SA', 'AE', 'OM', 'YE', 'QA', 'BH', 'KW', 'IQ', 'IR', 'IL', 'PS', 'JO', 'LB', 'SY', 'TR', 'EG', 'CY')]],
  [['holy land'], [countries('IL', 'PS', 'JO')]],
  [['tibet'], [area(TIBET)]],
  [['bali', 'balinese'], [area({ countryCode: 'ID', south: -8.9, north: -8, west: 114.42, east: 115.75 })]],
  [['himalaya', 'himalayas', 'himalayan'], [area(...HIMALAYA)]],
  [['southeast asia', 'south east asia'], [countries('TH', 'LA', 'KH', 'VN', 'MM', 'MY', 'SG', 'ID', 'PH', 'BN', 'TL')]],
  [['british isles'], [countries('GB', 'IE')]],
  [['scandinavia', 'nordic'], [countries('NO', 'SE', 'DK', 'FI', 'IS')]],

  // What people call countries by their people or islands
  [['japanese'], [countries('JP')]],
  [['indian'], [countries('IN')]],
  [['chinese'], [countries('CN')]],
  [['korean'], [countries('KR')]],
  [['thai'], [countries('TH')]],
  [['burmese'], [countries('MM')]],
  [['vietnamese'], [countries('VN')]],
  [['nepali', 'nepalese'], [countries('NP')]],
  [['bhutanese'], [countries('BT')]],
  [['greek'], [countries('GR')]],
  [['italian'], [countries('IT')]],
  [['french'], [countries('FR')]],
  [['spanish'], [countries('ES')]],
  [['irish'], [countries('IE')]],
  [['russian'], [countries('RU')]],
  [['turkish'], [countries('TR')]],
  [['persian', 'iranian'], [countries('IR')]],
  [['egyptian'], [countries('EG')]],
  [['ethiopian'], [countries('ET')]],
  [['mexican'], [countries('MX')]],
  [['peruvian'], [countries('PE')]],
  [['american'], [countries('US')]],
  [['canadian'], [countries('CA')]],
  [['australian'], [countries('AU')]],
  [['hawaii', 'hawaiian'], [countries('US'), continent('Oceania')]],
];

/** Words that carry no criterion in a request ("show me a peaceful place to visit"). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the in at on of to for from by with and or not me my i we our us you your it its is are was be can could ' +
    'should would will do does did show find give tell recommend suggest suggestion ideas looking look want wish like ' +
    'love go going visit visiting travel travelling traveling trip place places site sites spot spots destination ' +
    'destinations spiritual sacred holy famous best good great nice beautiful peaceful quiet some any somewhere ' +
    'where what which who how there here please top most list about near around across throughout close nearby within ' +
    'km miles'
  ).split(' '),
);
