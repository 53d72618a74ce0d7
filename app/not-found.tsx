import Link from "next/link";

export default function NotFound() {
  return (
    <section className="space-y-2">
      <h1 className="text-xl font-bold">Not found</h1>
      <p>
        There is no such page.{" "}
        <Link href="/" className="underline">
          Back to the bots
        </Link>
        .
      </p>
    </section>
  );
}
