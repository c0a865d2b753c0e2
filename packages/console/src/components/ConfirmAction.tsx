import { Button, type ButtonProps, Group, Modal, Stack, Text } from '@mantine/core';
import { type ReactNode, useState } from 'react';
import { ErrorNote } from './ErrorNote.js';

export interface ConfirmActionProps {
  /** The button's text; also the confirm button's text inside the dialog. */
  label: string;
  /** The button's accessible name when its text alone does not say what it acts on, e.g. "Delete role moderator". */
  name?: string;
  /** The dialog's question, e.g. "Delete this message?". */
  title: string;
  message?: ReactNode;
  color?: ButtonProps['color'];
  variant?: ButtonProps['variant'];
  size?: ButtonProps['size'];
  disabled?: boolean;
  /** The action; a throw keeps the dialog open and shows the error in it. */
  onConfirm: () => Promise<unknown>;
}

/** A button for a destroying action that asks first, in a dialog, and shows the action's error there. */
export function ConfirmAction({ label, name, title, message, color = 'red', variant = 'light', size = 'sm', disabled, onConfirm }: ConfirmActionProps) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const close = () => {
    if (busy) return;
    setOpen(false);
    setError(null);
  };

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      setOpen(false);
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Button color={color} variant={variant} size={size} disabled={disabled} onClick={() => setOpen(true)} aria-label={name}>
        {label}
      </Button>
      <Modal opened={open} onClose={close} title={title} centered>
        <Stack>
          {message !== undefined && <Text size="sm">{message}</Text>}
          <ErrorNote error={error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close} disabled={busy}>
              Cancel
            </Button>
            <Button color={color} onClick={confirm} loading={busy}>
              {label}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
