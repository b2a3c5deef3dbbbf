async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

// a soft irregular blob: n vertices around (cx, cy), radius r with wobble w
function blob(cx, cy, rx, ry, n, w) {
  brush.beginShape(0.6);
  for (let i = 0; i < n; i++) {
    const a = (360 * i) / n;
    const k = 1 + random(-w, w);
    brush.vertex(cx + rx * k * cos(a), cy + ry * k * sin(a));
  }
  brush.endShape(true);
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(478);

  brush.noStroke();
  brush.fill("#c7d3a0", 60);
  brush.fillBleed(0.3);
  brush.fillTexture(0.5, 0.2);
  blob(300, 520, 320, 60, 12, 0.1);
  brush.fill("#6a4e3a", 140);
  brush.fillBleed(0.05);
  brush.beginShape(0.3);
  brush.vertex(285, 520); brush.vertex(295, 330); brush.vertex(250, 260); brush.vertex(262, 255); brush.vertex(300, 310);
  brush.vertex(340, 250); brush.vertex(350, 258); brush.vertex(310, 330); brush.vertex(318, 520);
  brush.endShape(true);
  const greens = ["#7fa65a", "#5d8a4a", "#a3bf6a", "#4c7a45"];
  for (let i = 0; i < 9; i++) {
    brush.fill(greens[i % 4], 90);
    brush.fillBleed(0.3);
    brush.fillTexture(0.6, 0.5);
    brush.circle(300 + random(-110, 110), 220 + random(-80, 60), random(50, 85), 0.5);
  }
}
