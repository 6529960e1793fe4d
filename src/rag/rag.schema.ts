/** Wire schemas of `POST /api/v1/rag/query`, shared by the server (validation, OpenAPI) and clients. */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../schemas/common.schema.js';

/** Results a query returns by default, and at most. */
export const DEFAULT_RAG_LIMIT = 5;
export const MAX_RAG_LIMIT = 20;
/** The longest question, in characters. */
export const MAX_RAG_QUERY_CHARS = 1000;

export const RagQueryBodySchema = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: MAX_RAG_QUERY_CHARS,
      pattern: '\\S',
      description: 'The question, in words (1 to 1,000 characters, not only spaces)',
    }),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_RAG_LIMIT,
        default: DEFAULT_RAG_LIMIT,
        description: 'Chunks to return (1 to 20, default 5)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RagQueryBody = Static<typeof RagQueryBodySchema>;

export const RagSourceSchema = Type.Object({
  type: StringEnum(['doc', 'post'] as const, { description: '`doc`: the service documentation; `post`: a stored post' }),
  path: Type.Optional(Type.String({ description: 'doc: file, relative to the package (e.g. `README.md`)' })),
  heading: Type.Optional(Type.String({ description: 'doc: heading path, outermost first, joined by ` > `' })),
  post_id: Type.Optional(Type.String({ description: 'post: its id' })),
  url: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'post: its public URL' })),
  account_id: Type.Optional(Type.String({ description: "post: its author's account id" })),
});

export const RagChunkSchema = Type.Object({
  citation: Type.Integer({ minimum: 1, description: 'The number `[n]` the answer cites this chunk by' }),
  id: Type.String(),
  text: Type.String(),
  score: Type.Number({ description: 'BM25 score (higher is more relevant; comparable within one response)' }),
  source: RagSourceSchema,
});

export const RAG_ANSWER_MODES = ['generated', 'extractive', 'extractive_fallback'] as const;
export type RagAnswerMode = (typeof RAG_ANSWER_MODES)[number];

export const RagResultSchema = Type.Object({
  query: Type.String(),
  answer: Type.String(),
  answer_mode: StringEnum(RAG_ANSWER_MODES, {
    description:
      '`generated`: written by the configured language model from the chunks; `extractive`: quoted from the chunks (no model configured); `extractive_fallback`: quoted because the model failed (see `fallback_reason`)',
  }),
  fallback_reason: Type.Optional(Type.String()),
  model: Type.Optional(Type.String({ description: 'The model that wrote a generated answer' })),
  citations: Type.Array(Type.Integer({ minimum: 1 }), { description: 'The chunk numbers the answer cites' }),
  chunks: Type.Array(RagChunkSchema),
});
export type RagResult = Static<typeof RagResultSchema>;
