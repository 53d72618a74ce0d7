"use client";
import { useActionState } from "react";
import type { ActionResult } from "@/lib/actions/result";

interface Kept<T> {
  result: ActionResult<T> | null;
  /** What the operator typed, by field name, when the last submission was refused; empty after success. */
  values: Record<string, string>;
  /** Counts submissions: the form's `key`, so its fields remount with `values` as their defaults. */
  submission: number;
}

/**
 * The one way every operator form keeps its input: React resets a form's uncontrolled fields after
 * its action, so the fields take their `defaultValue` from what was submitted when the action was
 * refused (any refusal: invalid, conflict, refused, internal, unauthorized), and the form remounts
 * under a new `key` to show them. After success the values are dropped and the fields start empty.
 * The values come from the submitted form itself, in the browser: the server never echoes input.
 */
export function useKeptForm<T>(serverAction: (prev: null, form: FormData) => Promise<ActionResult<T>>) {
  const [kept, action, pending] = useActionState(
    async (prev: Kept<T>, form: FormData): Promise<Kept<T>> => {
      const result = await serverAction(null, form);
      const values: Record<string, string> = {};
      if (!result.ok) for (const [name, value] of form.entries()) if (typeof value === "string" && !name.startsWith("$ACTION")) values[name] = value;
      return { result, values, submission: prev.submission + 1 };
    },
    { result: null, values: {}, submission: 0 },
  );
  return {
    result: kept.result,
    action,
    pending,
    /** The field's default: what was typed before a refusal, else `fallback`. */
    value: (name: string, fallback = "") => kept.values[name] ?? fallback,
    key: kept.submission,
  };
}
