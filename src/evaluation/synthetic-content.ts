/**
 * Words and tags of the generated data (the evaluation's synthetic feed and catalogue, and the
 * demo data set): topics, each with its tags and words, so that a post's text and tags say
 * which topic it is about (what the semantic feature and a tag affinity can recover), plus
 * neutral filler words shared by every topic.
 */

/** One topic: the tags its posts carry (one or two of them) and the words their text draws from. */
export interface SyntheticTopic {
  readonly name: string;
  readonly tags: readonly string[];
  readonly words: readonly string[];
}

export const SYNTHETIC_TOPICS: readonly SyntheticTopic[] = [
  {
    name: 'rust',
    tags: ['rust', 'rustlang', 'cargo'],
    words: ['borrow', 'checker', 'crate', 'lifetime', 'trait', 'macro', 'unsafe', 'tokio'],
  },
  {
    name: 'gardening',
    tags: ['gardening', 'allotment', 'plants'],
    words: ['seeds', 'compost', 'soil', 'harvest', 'pruning', 'greenhouse', 'basil', 'roses'],
  },
  {
    name: 'astronomy',
    tags: ['astronomy', 'space', 'astrophotography'],
    words: ['telescope', 'nebula', 'galaxy', 'jupiter', 'eclipse', 'orbit', 'comet', 'observatory'],
  },
  {
    name: 'cooking',
    tags: ['cooking', 'baking', 'recipes'],
    words: ['sourdough', 'spices', 'oven', 'pasta', 'garlic', 'simmer', 'dough', 'kitchen'],
  },
  {
    name: 'music',
    tags: ['music', 'jazz', 'vinyl'],
    words: ['album', 'guitar', 'synth', 'concert', 'melody', 'drums', 'playlist', 'chords'],
  },
  {
    name: 'climate',
    tags: ['climate', 'energy', 'solar'],
    words: ['emissions', 'carbon', 'heatwave', 'policy', 'battery', 'flooding', 'renewables', 'grid'],
  },
  {
    name: 'books',
    tags: ['books', 'reading', 'poetry'],
    words: ['novel', 'chapter', 'library', 'fiction', 'paperback', 'memoir', 'bookshop', 'trilogy'],
  },
  {
    name: 'cycling',
    tags: ['cycling', 'bikes', 'gravel'],
    words: ['commute', 'saddle', 'gears', 'tyres', 'climb', 'helmet', 'touring', 'peloton'],
  },
  {
    name: 'linux',
    tags: ['linux', 'foss', 'debian'],
    words: ['kernel', 'distro', 'terminal', 'shell', 'systemd', 'wayland', 'package', 'desktop'],
  },
  {
    name: 'birds',
    tags: ['birds', 'birding', 'wildlife'],
    words: ['heron', 'sparrow', 'migration', 'feathers', 'nest', 'binoculars', 'owl', 'wetland'],
  },
  {
    name: 'boardgames',
    tags: ['boardgames', 'tabletop', 'ttrpg'],
    words: ['dice', 'meeple', 'strategy', 'cards', 'campaign', 'expansion', 'worker', 'placement'],
  },
  {
    name: 'coffee',
    tags: ['coffee', 'espresso', 'homebrew'],
    words: ['beans', 'roast', 'grinder', 'pourover', 'crema', 'barista', 'latte', 'aeropress'],
  },
  {
    name: 'history',
    tags: ['history', 'archaeology', 'museums'],
    words: ['archive', 'medieval', 'empire', 'manuscript', 'dynasty', 'excavation', 'century', 'treaty'],
  },
  {
    name: 'running',
    tags: ['running', 'marathon', 'trailrunning'],
    words: ['pace', 'trail', 'intervals', 'sneakers', 'tempo', 'recovery', 'stride', 'parkrun'],
  },
  {
    name: 'art',
    tags: ['art', 'illustration', 'painting'],
    words: ['sketch', 'canvas', 'watercolor', 'gallery', 'ink', 'palette', 'brush', 'studio'],
  },
  {
    name: 'security',
    tags: ['security', 'infosec', 'privacy'],
    words: ['vulnerability', 'patch', 'exploit', 'encryption', 'phishing', 'password', 'firewall', 'malware'],
  },
];

/** Words any post may carry, whatever its topic (they dilute the topic words, as real text does). */
export const FILLER_WORDS: readonly string[] = [
  'today',
  'finally',
  'tried',
  'amazing',
  'learned',
  'sharing',
  'favourite',
  'weekend',
  'morning',
  'little',
  'project',
  'thread',
  'thoughts',
  'great',
  'quick',
  'question',
  'update',
  'small',
  'lovely',
  'evening',
  'friends',
  'tiny',
  'honestly',
  'noticed',
];

/** Language codes and their shares of the demo data set's posts (the evaluation's are all `en`). */
export const LANGUAGES: readonly (readonly [string, number])[] = [
  ['en', 0.78],
  ['de', 0.08],
  ['fr', 0.06],
  ['es', 0.05],
  ['ja', 0.03],
];
