async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(425);

  brush.noStroke();
  brush.fill("#e3eef2", 60);
  brush.fillBleed(0.4);
  brush.rect(0, 0, 600, 600);
  brush.field("seabed");
  const pal = ["#3d5a80", "#98c1d9", "#ee6c4d", "#293241"];
  for (let i = 0; i < 40; i++) {
    brush.set("HB", random(pal), random(0.8, 1.6));
    brush.flowLine(random(-50, 600), random(0, 600), random(150, 350), 0);
  }
  brush.noField();
  brush.noStroke();
  brush.fill("#ee6c4d", 100);
  brush.fillBleed(0.3);
  brush.fillTexture(0.5, 0.5);
  brush.circle(400, 220, 70, 0.3);
}
