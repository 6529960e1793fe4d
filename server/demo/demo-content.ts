/** Vocabulary of the demo data set: topics with their words, and the language mix. */

export const TOPICS: Readonly<Record<string, readonly string[]>> = {
  rust: ['borrow', 'checker', 'cargo', 'crate', 'lifetime', 'trait', 'async', 'compiler', 'unsafe', 'macro'],
  typescript: ['types', 'generics', 'compiler', 'strict', 'interface', 'union', 'inference', 'node', 'deno', 'bundler'],
  photography: ['lens', 'aperture', 'shutter', 'light', 'portrait', 'landscape', 'film', 'camera', 'exposure', 'sunset'],
  cats: ['kitten', 'purr', 'whiskers', 'nap', 'paws', 'meow', 'catnip', 'fluffy', 'tabby', 'window'],
  gardening: ['seeds', 'tomatoes', 'compost', 'soil', 'harvest', 'bloom', 'pruning', 'greenhouse', 'basil', 'roses'],
  astronomy: ['telescope', 'nebula', 'galaxy', 'planet', 'jupiter', 'eclipse', 'orbit', 'stars', 'comet', 'observatory'],
  cooking: ['recipe', 'bread', 'sourdough', 'spices', 'oven', 'pasta', 'garlic', 'simmer', 'dough', 'kitchen'],
  music: ['album', 'guitar', 'synth', 'concert', 'vinyl', 'melody', 'drums', 'playlist', 'chords', 'jazz'],
  climate: ['emissions', 'solar', 'wind', 'carbon', 'heatwave', 'policy', 'energy', 'battery', 'flooding', 'renewables'],
  books: ['novel', 'chapter', 'author', 'library', 'poetry', 'fiction', 'reading', 'paperback', 'series', 'memoir'],
  cycling: ['bike', 'gravel', 'commute', 'saddle', 'gears', 'tyres', 'route', 'climb', 'helmet', 'touring'],
  linux: ['kernel', 'distro', 'terminal', 'shell', 'systemd', 'wayland', 'package', 'debian', 'arch', 'desktop'],
  birds: ['heron', 'sparrow', 'migration', 'feathers', 'nest', 'binoculars', 'owl', 'robin', 'wetland', 'song'],
  boardgames: ['dice', 'meeple', 'strategy', 'cards', 'tabletop', 'campaign', 'expansion', 'worker', 'placement', 'coop'],
  coffee: ['espresso', 'beans', 'roast', 'grinder', 'pourover', 'crema', 'barista', 'latte', 'aeropress', 'brew'],
  history: ['archive', 'medieval', 'empire', 'museum', 'manuscript', 'dynasty', 'excavation', 'century', 'treaty', 'artifact'],
  running: ['marathon', 'pace', 'trail', 'intervals', 'sneakers', 'tempo', 'recovery', 'stride', 'parkrun', 'miles'],
  art: ['painting', 'sketch', 'canvas', 'watercolor', 'gallery', 'ink', 'illustration', 'palette', 'brush', 'studio'],
  security: ['vulnerability', 'patch', 'exploit', 'encryption', 'phishing', 'password', 'firewall', 'audit', 'malware', 'keys'],
  fediverse: ['mastodon', 'instance', 'federation', 'moderation', 'toot', 'boost', 'server', 'activitypub', 'community', 'hashtag'],
};

export const TOPIC_NAMES = Object.keys(TOPICS);

export const FILLER = [
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
  'big',
  'lovely',
];

/** Language codes and their shares of posts. */
export const LANGUAGES: readonly [string, number][] = [
  ['en', 0.78],
  ['de', 0.08],
  ['fr', 0.06],
  ['es', 0.05],
  ['ja', 0.03],
];
