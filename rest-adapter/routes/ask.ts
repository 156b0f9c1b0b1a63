// Ask routes: a question over an organization's content or a site's published content, answered
// as the published SearchAIAnswer (streamed as SearchAIAnswerStream events, or whole), and the
// recommended questions (SearchAIRecommendedQuestions, or one SearchAIRecommendedQuestionStream
// event per question). The answers are the subscriptions askInOrganization and askInSite.
import { graphql, type FragmentOf } from "../graphql.ts";
import { compact, formatVariables, RestInputError, type RestRequest, type RestRoute, typedRoute } from "../route.ts";

const AskAnswerFields = graphql(`
  fragment AskAnswerFields on AskAnswer {
    markdown @include(if: $markdown)
    document @include(if: $document)
    sources { space revision page sections }
    followupQuestions
  }
`);

type Answer = FragmentOf<typeof AskAnswerFields> & { markdown?: string | null; document?: unknown };

/** The published SearchAIAnswer: `answer` in the asked format (an empty document before any text). */
const restAnswer = (answer: Answer) => ({
  answer: answer.markdown != null ? { markdown: answer.markdown } : answer.document != null ? { document: answer.document } : {},
  followupQuestions: answer.followupQuestions,
  sources: answer.sources.map((source) => ({ type: "page", ...source })),
});

/** A string the body or query must carry (named in the message when it does not). */
function requiredString(value: unknown, field: string): string {
  if (typeof value !== "string") throw new RestInputError(`${field} is required (a question of at most 512 characters)`);
  return value;
}

const ASK_QUERY = { format: "string", details: "boolean" } as const;
const askFormat = (request: RestRequest) => formatVariables(request, "document");

const AskInOrganization = graphql(
  `subscription AskInOrganization($organization: ID!, $query: String!, $markdown: Boolean!, $document: Boolean!) {
    askInOrganization(organization: $organization, query: $query) { ...AskAnswerFields }
  }`,
  [AskAnswerFields],
);

const questionsBody = (questions: string[]) => questions.map((question) => ({ question }));

export const askRoutes: RestRoute[] = [
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/ask",
    action: "organization.read",
    query: ASK_QUERY,
    document: AskInOrganization,
    variables: (request) => ({
      organization: request.params.organizationId,
      query: requiredString(request.body.query, "query"),
      ...askFormat(request),
    }),
    stream: "last",
    status: 200,
    body: (data) => ({ answer: restAnswer(data.askInOrganization) }),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/ask/stream",
    action: "organization.read",
    query: { query: "string", ...ASK_QUERY },
    document: AskInOrganization,
    variables: (request) => ({
      organization: request.params.organizationId,
      query: requiredString(request.query.query, "query"),
      ...askFormat(request),
    }),
    stream: "events",
    status: 200,
    body: (data) => ({ type: "answer", answer: restAnswer(data.askInOrganization) }),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/sites/:siteId/ask",
    action: "site.read",
    query: { format: "string" },
    document: graphql(
      `subscription AskInSite($organization: ID!, $site: ID!, $question: String!, $scope: JSON, $markdown: Boolean!, $document: Boolean!) {
        askInSite(organization: $organization, site: $site, question: $question, scope: $scope) { ...AskAnswerFields }
      }`,
      [AskAnswerFields],
    ),
    variables: (request) => {
      const question = requiredString(request.body.question, "question");
      if (request.body.scope == null) throw new RestInputError("scope is required ({ mode: default | specific | all, … })");
      return {
        organization: request.params.organizationId,
        site: request.params.siteId,
        question,
        scope: request.body.scope,
        ...askFormat(request),
      };
    },
    stream: "events",
    status: 200,
    body: (data) => ({ type: "answer", answer: restAnswer(data.askInSite) }),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/ask/questions",
    action: "organization.read",
    document: graphql(`query RecommendedQuestionsInOrganization($id: ID!) { organization(id: $id) { recommendedQuestions } }`),
    variables: ({ params }) => ({ id: params.organizationId }),
    status: 200,
    body: (data) => ({ questions: data.organization.recommendedQuestions }),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/ask/questions/stream",
    action: "organization.read",
    document: graphql(`query StreamRecommendedQuestionsInOrganization($id: ID!) { organization(id: $id) { recommendedQuestions } }`),
    variables: ({ params }) => ({ id: params.organizationId }),
    stream: "events",
    status: 200,
    body: (data) => questionsBody(data.organization.recommendedQuestions),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/sites/:siteId/ask/questions",
    action: "site.read",
    query: { siteSpaceId: "string", spaceId: "string" },
    document: graphql(
      `query StreamRecommendedQuestionsInSite($site: ID!, $organization: ID, $siteSpace: ID, $space: ID) {
        site(id: $site, organization: $organization) { recommendedQuestions(siteSpace: $siteSpace, space: $space) }
      }`,
    ),
    variables: ({ params, query }) => ({
      site: params.siteId,
      organization: params.organizationId,
      ...compact({ siteSpace: query.siteSpaceId, space: query.spaceId }),
    }),
    stream: "events",
    status: 200,
    body: (data) => questionsBody(data.site.recommendedQuestions),
  }),
];
