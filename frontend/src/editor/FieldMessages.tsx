/** Inline error messages under a form field. */
export function FieldMessages({ messages, id }: { messages: string[] | undefined; id?: string }) {
  if (!messages || messages.length === 0) return null;
  return (
    <ul className="field-messages" id={id} role="alert">
      {messages.map((message, index) => (
        <li key={index}>{message}</li>
      ))}
    </ul>
  );
}
