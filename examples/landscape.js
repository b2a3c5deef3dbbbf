// Hills at dusk: a washed sky, a sun, three ranges of hills, a lake and reeds.
async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function ridge(baseY, amp, freq, phase) {
  const pts = [];
  for (let x = -20; x <= 620; x += 40) {
    pts.push([x, baseY - amp * noise(x * freq + phase) - 10 * sin(x * 0.8 + phase)]);
  }
  return pts;
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fdf0d5");
  randomSeed(4);
  noiseSeed(4);

  brush.noStroke();
  brush.fillTexture(0.6, 0.5);
  // sky in two glazes
  brush.fillBleed(0.4, "out");
  brush.fill("#f4a261", 70);
  brush.rect(0, 0, 600, 260);
  brush.fill("#e76f51", 50);
  brush.rect(0, 0, 600, 140);
  // sun
  brush.fill("#ffb703", 160);
  brush.fillBleed(0.2);
  brush.circle(430, 190, 45, 0.2);

  // three ranges, far to near: lighter and bluer far away
  const ranges = [
    [300, 90, 0.004, 1, "#8d99ae", 90],
    [360, 80, 0.006, 5, "#52796f", 120],
    [420, 60, 0.008, 9, "#354f52", 150],
  ];
  for (const [y, amp, f, ph, col, op] of ranges) {
    brush.fill(col, op);
    brush.fillBleed(0.15);
    brush.beginShape(0.5);
    for (const [x, yy] of ridge(y, amp, f, ph)) brush.vertex(x, yy);
    brush.vertex(620, 620);
    brush.vertex(-20, 620);
    brush.endShape(true);
  }

  // lake with a pale reflection
  brush.fill("#a8dadc", 120);
  brush.fillBleed(0.3, "in");
  brush.beginShape(0.7);
  brush.vertex(60, 500);
  brush.vertex(300, 470);
  brush.vertex(560, 505);
  brush.vertex(300, 560);
  brush.endShape(true);
  brush.noFill();

  // reeds
  brush.set("2B", "#2f3e46", 1);
  for (let i = 0; i < 9; i++) {
    const x = 80 + i * 14 + random(-4, 4);
    brush.beginStroke("curve", x, 585);
    brush.move(95 + random(-10, 10), 40 + random(30), 1);
    brush.move(100 + random(-15, 15), 20, 0.6);
    brush.endStroke(100, 0.3);
  }
}
