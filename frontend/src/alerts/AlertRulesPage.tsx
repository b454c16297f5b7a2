import { AlertRulesPanel } from './AlertRulesPanel';

/** Every alert rule of the pipelines the user may see: create, change, test, and their webhooks' deliveries. */
export function AlertRulesPage() {
  return (
    <main className="list-page alert-rules-page">
      <div className="list-page__heading">
        <h1>Alert rules</h1>
      </div>
      <AlertRulesPanel pipelineId={null} />
    </main>
  );
}
