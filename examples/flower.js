// A poppy in watercolour: layered petals, a dark centre, a bending stem and two leaves.
async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(11);
  brush.seed(11);

  // stem and leaves first, so the petals bleed over them
  brush.noStroke();
  brush.fillBleed(0.2);
  brush.fillTexture(0.5, 0.3);
  brush.fill("#4f772d", 130);
  brush.beginShape(0.6);
  brush.vertex(292, 300);
  brush.vertex(308, 300);
  brush.vertex(330, 450);
  brush.vertex(318, 590);
  brush.vertex(304, 590);
  brush.vertex(314, 450);
  brush.endShape(true);
  for (const side of [-1, 1]) {
    push();
    translate(318, 470);
    rotate(side * 35);
    brush.fill("#90a955", 110);
    brush.beginShape(0.8);
    brush.vertex(0, 0);
    brush.vertex(side * 45, -25);
    brush.vertex(side * 95, 0);
    brush.vertex(side * 45, 18);
    brush.endShape(true);
    pop();
  }

  // petals: five overlapping discs around the centre, two glazes each
  const reds = ["#d62828", "#e63946", "#f77f00"];
  brush.fillBleed(0.35, "out");
  for (let layer = 0; layer < 2; layer++) {
    for (let i = 0; i < 5; i++) {
      const a = i * 72 + layer * 36 + random(-8, 8);
      const r = 70 - layer * 15;
      brush.fill(reds[(i + layer) % reds.length], 100 + layer * 30);
      brush.circle(300 + r * cos(a), 250 + r * sin(a), 62 - layer * 12, 0.6);
    }
  }

  // centre and stamens
  brush.fill("#1d1a31", 200);
  brush.fillBleed(0.1);
  brush.circle(300, 250, 22, 0.3);
  brush.noFill();
  brush.set("pen", "#1d1a31", 1);
  for (let i = 0; i < 12; i++) {
    const a = i * 30;
    brush.line(300 + 18 * cos(a), 250 + 18 * sin(a), 300 + 34 * cos(a), 250 + 34 * sin(a));
  }
}
