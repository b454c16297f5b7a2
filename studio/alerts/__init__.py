"""Alert rules on a pipeline's runs, the notifications they raise, and their webhook deliveries."""
