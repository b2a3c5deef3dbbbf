async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(857);

  brush.noStroke();
  brush.fillBleed(0.02);
  brush.fillTexture(0.05, 0.9);
  const muds = ["#5a5040", "#4b4a3a", "#6a5b4c", "#3e3a35", "#5e5347", "#575a45"];
  for (let i = 0; i < 22; i++) {
    brush.fill(random(muds), random(200, 255));
    brush.circle(random(80, 520), random(80, 520), random(60, 150), random(0.1, 0.4));
  }
}
