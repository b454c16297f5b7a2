import '../styles/dataIn.css';
import { useEffect, useState } from 'react';
import { dataIn, type KafkaSample, type KafkaTopic } from '../api/dataIn';
import { classNames } from '../ui/classNames';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

interface TopicBrowserProps {
  /** A broker list or a profile reference (connection:<name>). */
  bootstrap: string;
  /** What the source emits: the paths of the inferred fields are written for it. */
  emit?: string;
  /** Offered as "Use this topic" when set (the Kafka source's form). */
  onUseTopic?: (topic: string, sample: KafkaSample) => void;
}

/**
 * A Kafka cluster's topics with their partitions and offsets; a topic's latest messages and the
 * fields inferred from them, which the editor offers in expressions.
 */
export function TopicBrowser({ bootstrap, emit = 'record', onUseTopic }: TopicBrowserProps) {
  const [topics, setTopics] = useState<KafkaTopic[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [sample, setSample] = useState<KafkaSample | null>(null);
  const [sampling, setSampling] = useState(false);

  useEffect(() => {
    let live = true;
    setTopics(null);
    setError(null);
    dataIn.kafkaTopics(bootstrap).then(
      (found) => live && setTopics(found),
      (failure: unknown) => live && setError(messageOf(failure)),
    );
    return () => {
      live = false;
    };
  }, [bootstrap]);

  async function open(topic: string) {
    setSelected(topic);
    setSample(null);
    setSampling(true);
    try {
      setSample(await dataIn.kafkaSample(bootstrap, topic, { limit: 20, emit }));
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setSampling(false);
    }
  }

  return (
    <div className="topic-browser" data-testid="topic-browser">
      {error && <p className="error-text" data-testid="topic-browser-error">{error}</p>}
      {!topics && !error && <p className="muted">Reading the cluster…</p>}
      {topics && (
        <table className="data-table">
          <thead>
            <tr>
              <th>Topic</th>
              <th className="numeric">Partitions</th>
              <th className="numeric">Messages</th>
              <th>Offsets (earliest–latest per partition)</th>
            </tr>
          </thead>
          <tbody>
            {topics.length === 0 && (
              <tr>
                <td colSpan={4} className="muted">
                  The cluster has no topics.
                </td>
              </tr>
            )}
            {topics.map((topic) => (
              <tr key={topic.topic} data-testid="topic-row" data-topic={topic.topic} className={classNames(selected === topic.topic && 'is-selected')}>
                <td>
                  <button type="button" className="link-button" data-testid="topic-open" onClick={() => void open(topic.topic)}>
                    {topic.topic}
                  </button>
                </td>
                <td className="numeric">{topic.partitions.length}</td>
                <td className="numeric">{topic.messages}</td>
                <td>
                  <code>{topic.partitions.map((part) => `${part.partition}: ${part.earliest}–${part.latest}`).join(' · ')}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {selected && sampling && <p className="muted">Sampling {selected}…</p>}
      {selected && sample && (
        <div className="topic-sample" data-testid="topic-sample">
          <div className="topic-sample__heading">
            <h3>
              {sample.topic}: the latest {sample.messages.length} messages
            </h3>
            {onUseTopic && (
              <button type="button" className="button button--primary" data-testid="topic-use" onClick={() => onUseTopic(sample.topic, sample)}>
                Use this topic
              </button>
            )}
          </div>
          <h4>Fields inferred from them (offered in expressions)</h4>
          <ul className="inferred-fields" data-testid="inferred-fields">
            {sample.fields.map((field) => (
              <li key={field.path} data-testid="inferred-field">
                <code>{field.path}</code> <span className="muted">{field.types.join(' | ')}</span>
                {field.example !== null && <span className="muted"> e.g. {field.example}</span>}
              </li>
            ))}
          </ul>
          <div className="table-scroll">
            <table className="data-table">
              <thead>
                <tr>
                  <th className="numeric">Partition</th>
                  <th className="numeric">Offset</th>
                  <th>Time</th>
                  <th>Key</th>
                  <th>Value</th>
                </tr>
              </thead>
              <tbody>
                {sample.messages.map((message) => (
                  <tr key={`${message.partition}-${message.offset}`} data-testid="topic-message">
                    <td className="numeric">{message.partition}</td>
                    <td className="numeric">{message.offset}</td>
                    <td>{new Date(message.timestamp).toLocaleTimeString()}</td>
                    <td>
                      <code>{message.key ?? '–'}</code>
                    </td>
                    <td>
                      <code>{message.text ?? 'null'}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </div>
  );
}
