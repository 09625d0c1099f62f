/**
 * A curated catalogue of well-known spiritual destinations, kept as data so it
 * can be reviewed and extended without touching the tool. Order matters: it is
 * the tie-breaker when the tool ranks equally good matches.
 *
 * Coordinates point at the site itself (WGS 84, decimal degrees) so a weather
 * lookup describes the place, not the capital of its country.
 */
export const CONTINENTS = ['Africa', 'Asia', 'Europe', 'North America', 'South America', 'Oceania'] as const;
export type Continent = (typeof CONTINENTS)[number];

export const DESTINATION_KINDS = ['pilgrimage site', 'temple', 'monastery', 'sacred mountain', 'retreat centre'] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

export interface SpiritualDestination {
  name: string;
  country: string;
  region: Continent;
  traditions: readonly string[];
  kind: DestinationKind;
  description: string;
  bestSeason: string;
  latitude: number;
  longitude: number;
}

export const SPIRITUAL_DESTINATIONS: readonly SpiritualDestination[] = [
  // Asia
  {
    name: 'Varanasi',
    country: 'India',
    region: 'Asia',
    traditions: ['Hinduism'],
    kind: 'pilgrimage site',
    description:
      "Hinduism's holiest city, where pilgrims bathe at the ghats along the Ganges and the evening Ganga Aarti lights up the river.",
    bestSeason: 'October to March',
    latitude: 25.3068,
    longitude: 83.0104,
  },
  {
    name: 'Mahabodhi Temple, Bodh Gaya',
    country: 'India',
    region: 'Asia',
    traditions: ['Buddhism'],
    kind: 'temple',
    description:
      'The temple beside the Bodhi Tree where the Buddha is said to have attained enlightenment, the most sacred of Buddhist pilgrimage sites.',
    bestSeason: 'October to March',
    latitude: 24.6961,
    longitude: 84.9913,
  },
  {
    name: 'Golden Temple (Harmandir Sahib), Amritsar',
    country: 'India',
    region: 'Asia',
    traditions: ['Sikhism'],
    kind: 'temple',
    description:
      'The holiest Sikh gurdwara, a gilded shrine in a sacred pool whose community kitchen serves free meals to every visitor.',
    bestSeason: 'October to March',
    latitude: 31.62,
    longitude: 74.8765,
  },
  {
    name: 'Rishikesh',
    country: 'India',
    region: 'Asia',
    traditions: ['Hinduism', 'Yoga'],
    kind: 'retreat centre',
    description:
      'A town of ashrams and yoga schools on the Ganges at the foot of the Himalayas, known as the yoga capital of the world.',
    bestSeason: 'September to November and February to April',
    latitude: 30.0869,
    longitude: 78.2676,
  },
  {
    name: 'Lumbini',
    country: 'Nepal',
    region: 'Asia',
    traditions: ['Buddhism'],
    kind: 'pilgrimage site',
    description:
      'The birthplace of Siddhartha Gautama, the Buddha, with the Maya Devi Temple and a zone of monasteries built by Buddhist nations.',
    bestSeason: 'October to April',
    latitude: 27.4695,
    longitude: 83.2757,
  },
  {
    name: 'Mount Kailash',
    country: 'China',
    region: 'Asia',
    traditions: ['Hinduism', 'Tibetan Buddhism', 'Jainism', 'Bön'],
    kind: 'sacred mountain',
    description:
      'A peak in western Tibet revered by four religions, never climbed but circled on foot by pilgrims on a three-day kora.',
    bestSeason: 'May to September',
    latitude: 31.0675,
    longitude: 81.3119,
  },
  {
    name: 'Angkor Wat',
    country: 'Cambodia',
    region: 'Asia',
    traditions: ['Hinduism', 'Theravada Buddhism'],
    kind: 'temple',
    description:
      'The largest religious monument in the world, near Siem Reap, built as a Hindu temple to Vishnu and later a Buddhist one.',
    bestSeason: 'November to March',
    latitude: 13.4125,
    longitude: 103.867,
  },
  {
    name: 'Borobudur',
    country: 'Indonesia',
    region: 'Asia',
    traditions: ['Mahayana Buddhism'],
    kind: 'temple',
    description:
      'A ninth-century Buddhist temple in Central Java whose terraces pilgrims climb clockwise past hundreds of stupas and relief panels.',
    bestSeason: 'May to October',
    latitude: -7.6079,
    longitude: 110.2038,
  },
  {
    name: 'Mount Koya (Koyasan)',
    country: 'Japan',
    region: 'Asia',
    traditions: ['Shingon Buddhism'],
    kind: 'monastery',
    description:
      'A mountain-top town of over a hundred Buddhist temples, many offering lodging to pilgrims, around the Okunoin mausoleum of Kobo Daishi.',
    bestSeason: 'April to November',
    latitude: 34.213,
    longitude: 135.5855,
  },
  {
    name: "Paro Taktsang (Tiger's Nest)",
    country: 'Bhutan',
    region: 'Asia',
    traditions: ['Tibetan Buddhism'],
    kind: 'monastery',
    description:
      'A cliffside Buddhist monastery above the Paro valley where Guru Rinpoche is said to have meditated, reached by a steep hike.',
    bestSeason: 'March to May and September to November',
    latitude: 27.4917,
    longitude: 89.3633,
  },
  {
    name: 'Mevlana Museum, Konya',
    country: 'Turkey',
    region: 'Asia',
    traditions: ['Sufi Islam'],
    kind: 'pilgrimage site',
    description:
      "The mausoleum of the Sufi poet Rumi, whose followers founded the Mevlevi order of whirling dervishes, visited by Muslim pilgrims all year.",
    bestSeason: 'April to June and September to November',
    latitude: 37.8708,
    longitude: 32.5047,
  },
  // Europe
  {
    name: 'Santiago de Compostela Cathedral',
    country: 'Spain',
    region: 'Europe',
    traditions: ['Catholic Christianity'],
    kind: 'pilgrimage site',
    description:
      'The end of the Camino de Santiago walking routes, where the apostle Saint James is said to be buried.',
    bestSeason: 'May to June and September',
    latitude: 42.8806,
    longitude: -8.5446,
  },
  {
    name: 'Sanctuary of Our Lady of Lourdes',
    country: 'France',
    region: 'Europe',
    traditions: ['Catholic Christianity'],
    kind: 'pilgrimage site',
    description:
      'The grotto in the Pyrenees foothills where Bernadette Soubirous reported visions of the Virgin Mary in 1858, visited for its healing spring.',
    bestSeason: 'April to October',
    latitude: 43.0975,
    longitude: -0.0584,
  },
  {
    name: 'Mount Athos',
    country: 'Greece',
    region: 'Europe',
    traditions: ['Eastern Orthodox Christianity'],
    kind: 'monastery',
    description:
      'A self-governing peninsula of twenty Orthodox monasteries, open to men only and with an entry permit.',
    bestSeason: 'April to June and September to October',
    latitude: 40.157,
    longitude: 24.3264,
  },
  {
    name: 'Meteora',
    country: 'Greece',
    region: 'Europe',
    traditions: ['Eastern Orthodox Christianity'],
    kind: 'monastery',
    description:
      'Orthodox monasteries perched on sandstone pillars above Kalambaka, six of them still active and open to visitors.',
    bestSeason: 'April to June and September to October',
    latitude: 39.7217,
    longitude: 21.6306,
  },
  {
    name: 'Assisi',
    country: 'Italy',
    region: 'Europe',
    traditions: ['Catholic Christianity'],
    kind: 'pilgrimage site',
    description:
      'The Umbrian hill town of Saint Francis and Saint Clare, whose Basilica of Saint Francis holds his tomb.',
    bestSeason: 'April to June and September to October',
    latitude: 43.0753,
    longitude: 12.6056,
  },
  {
    name: 'Iona Abbey',
    country: 'United Kingdom',
    region: 'Europe',
    traditions: ['Ecumenical Christianity'],
    kind: 'retreat centre',
    description:
      'A restored medieval abbey on the Hebridean island where Saint Columba founded a monastery in 563, now home to the Iona Community.',
    bestSeason: 'May to September',
    latitude: 56.3343,
    longitude: -6.3922,
  },
  {
    name: 'Taizé Community',
    country: 'France',
    region: 'Europe',
    traditions: ['Ecumenical Christianity'],
    kind: 'retreat centre',
    description:
      'An ecumenical monastic community in Burgundy that welcomes thousands of young people each week for prayer, song and silence.',
    bestSeason: 'All year; largest gatherings at Easter and in summer',
    latitude: 46.5139,
    longitude: 4.6767,
  },
  {
    name: 'Plum Village',
    country: 'France',
    region: 'Europe',
    traditions: ['Zen Buddhism'],
    kind: 'retreat centre',
    description:
      'The mindfulness practice centre founded by the Zen master Thich Nhat Hanh in the Dordogne countryside, with retreats for lay visitors.',
    bestSeason: 'All year; summer retreat in July',
    latitude: 44.738,
    longitude: 0.334,
  },
  // Africa
  {
    name: 'Rock-Hewn Churches of Lalibela',
    country: 'Ethiopia',
    region: 'Africa',
    traditions: ['Ethiopian Orthodox Christianity'],
    kind: 'pilgrimage site',
    description:
      'Eleven medieval churches carved out of solid rock, the focus of the Genna pilgrimage at Ethiopian Christmas in January.',
    bestSeason: 'October to March',
    latitude: 12.0319,
    longitude: 39.0416,
  },
  {
    name: 'Great Mosque of Touba',
    country: 'Senegal',
    region: 'Africa',
    traditions: ['Sufi Islam'],
    kind: 'pilgrimage site',
    description:
      'The mosque of the Mouride brotherhood founded by Cheikh Amadou Bamba, where the Grand Magal pilgrimage draws millions of Muslims.',
    bestSeason: 'November to May',
    latitude: 14.8607,
    longitude: -15.8757,
  },
  {
    name: "Saint Catherine's Monastery",
    country: 'Egypt',
    region: 'Africa',
    traditions: ['Eastern Orthodox Christianity'],
    kind: 'monastery',
    description:
      'One of the oldest working Christian monasteries, at the foot of Mount Sinai, which pilgrims climb before dawn to see the sunrise.',
    bestSeason: 'October to April',
    latitude: 28.5559,
    longitude: 33.976,
  },
  {
    name: 'Osun-Osogbo Sacred Grove',
    country: 'Nigeria',
    region: 'Africa',
    traditions: ['Yoruba religion'],
    kind: 'pilgrimage site',
    description:
      'A forest shrine to the river goddess Osun on the edge of Osogbo, where the Osun-Osogbo festival is held every August.',
    bestSeason: 'November to March, or August for the festival',
    latitude: 7.7553,
    longitude: 4.5521,
  },
  // North America
  {
    name: 'Basilica of Our Lady of Guadalupe',
    country: 'Mexico',
    region: 'North America',
    traditions: ['Catholic Christianity'],
    kind: 'pilgrimage site',
    description:
      "Mexico City's shrine to the Virgin of Guadalupe, the most visited Catholic pilgrimage site in the world, busiest around 12 December.",
    bestSeason: 'November to April',
    latitude: 19.4845,
    longitude: -99.1176,
  },
  {
    name: 'El Santuario de Chimayó',
    country: 'United States',
    region: 'North America',
    traditions: ['Catholic Christianity'],
    kind: 'pilgrimage site',
    description:
      'A small adobe church in northern New Mexico whose holy dirt draws tens of thousands of pilgrims walking there on Good Friday.',
    bestSeason: 'April to October',
    latitude: 35.9933,
    longitude: -105.93,
  },
  {
    name: 'Bear Butte',
    country: 'United States',
    region: 'North America',
    traditions: ['Lakota spirituality', 'Cheyenne spirituality'],
    kind: 'sacred mountain',
    description:
      'A lone mountain by the Black Hills of South Dakota where Lakota and Cheyenne people pray and fast, leaving prayer ties in the trees.',
    bestSeason: 'May to September',
    latitude: 44.4761,
    longitude: -103.4269,
  },
  {
    name: 'Abbey of Gethsemani',
    country: 'United States',
    region: 'North America',
    traditions: ['Catholic Christianity'],
    kind: 'monastery',
    description:
      'The Trappist monastery in rural Kentucky where Thomas Merton lived, offering silent retreats in its guesthouse.',
    bestSeason: 'April to October',
    latitude: 37.6631,
    longitude: -85.5345,
  },
  {
    name: 'Sainte-Anne-de-Beaupré',
    country: 'Canada',
    region: 'North America',
    traditions: ['Catholic Christianity'],
    kind: 'pilgrimage site',
    description:
      'A basilica on the Saint Lawrence River near Quebec City, one of the oldest pilgrimage sites in North America, dedicated to Saint Anne.',
    bestSeason: 'June to September',
    latitude: 47.0241,
    longitude: -70.9286,
  },
  // South America
  {
    name: 'Machu Picchu',
    country: 'Peru',
    region: 'South America',
    traditions: ['Inca religion'],
    kind: 'pilgrimage site',
    description:
      'The fifteenth-century Inca citadel on a ridge above the Urubamba valley, with a Temple of the Sun and the sacred Intihuatana stone.',
    bestSeason: 'April to October',
    latitude: -13.1631,
    longitude: -72.545,
  },
  {
    name: 'Isla del Sol',
    country: 'Bolivia',
    region: 'South America',
    traditions: ['Inca religion', 'Andean spirituality'],
    kind: 'pilgrimage site',
    description:
      'An island in Lake Titicaca that Inca tradition holds to be the birthplace of the sun, crossed by ancient paths between ruins.',
    bestSeason: 'May to October',
    latitude: -16.02,
    longitude: -69.17,
  },
  {
    name: 'Basilica of Our Lady of Aparecida',
    country: 'Brazil',
    region: 'South America',
    traditions: ['Catholic Christianity'],
    kind: 'pilgrimage site',
    description:
      "The vast basilica in São Paulo state that houses the statue of Brazil's patron saint, one of the largest Catholic churches in the world.",
    bestSeason: 'April to September',
    latitude: -22.8513,
    longitude: -45.2339,
  },
  // Oceania
  {
    name: 'Uluru',
    country: 'Australia',
    region: 'Oceania',
    traditions: ['Anangu spirituality'],
    kind: 'sacred mountain',
    description:
      'A sandstone monolith in the Red Centre sacred to the Anangu people; climbing it has been banned since 2019, so visitors walk its base.',
    bestSeason: 'May to September',
    latitude: -25.3444,
    longitude: 131.0369,
  },
  {
    name: 'Nan Tien Temple',
    country: 'Australia',
    region: 'Oceania',
    traditions: ['Mahayana Buddhism'],
    kind: 'temple',
    description:
      'The largest Buddhist temple in the Southern Hemisphere, near Wollongong, with meditation and retreat programmes open to everyone.',
    bestSeason: 'March to May and September to November',
    latitude: -34.4707,
    longitude: 150.856,
  },
  {
    name: 'Cape Reinga (Te Rerenga Wairua)',
    country: 'New Zealand',
    region: 'Oceania',
    traditions: ['Māori spirituality'],
    kind: 'pilgrimage site',
    description:
      'The northern tip of New Zealand where, in Māori tradition, the spirits of the dead leap into the underworld from an old pōhutukawa tree.',
    bestSeason: 'November to April',
    latitude: -34.4287,
    longitude: 172.6808,
  },
];
